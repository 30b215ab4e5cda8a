import numpy as np, sys
rng=np.random.default_rng(1)
def boot(bl, cl, G, K, B, level, hier, rs):
    # bl[g][k] arrays
    rat=[]
    for _ in range(B):
        gs = rs.integers(0,G,G) if hier else range(G)
        pb=[];pc=[]
        for g in gs:
            ks=rs.integers(0,K,K)
            for k in ks: pb.append(bl[g][k]); pc.append(cl[g][k])
        rat.append(np.median(np.concatenate(pb))/np.median(np.concatenate(pc)))
    a=(1-level)/2
    return np.quantile(rat,a), np.quantile(rat,1-a)
def trial(G,K,m,sig,eff,gsig,hier,level,rs):
    bl=[[None]*K for _ in range(G)]; cl=[[None]*K for _ in range(G)]
    for g in range(G):
        ge = rs.normal(0,gsig)  # group-level ratio effect (noise that does not cancel)
        for k in range(K):
            bl[g][k]=np.exp(rs.normal(0,sig,2*m))*(1+eff)
            cl[g][k]=np.exp(rs.normal(ge,sig,2*m))
    lo,hi=boot(bl,cl,G,K,300,level,hier,rs)
    return lo>1
for (K,m) in [(2,5),(6,2),(4,3)]:
  for hier in [False,True]:
    for level in [0.95,0.99]:
      for gsig in [0,0.01]:
        rs=np.random.default_rng(7)
        fp=np.mean([trial(3,K,m,0.005,0,gsig,hier,level,rs) for _ in range(300)])
        tp=np.mean([trial(3,K,m,0.005,0.02,gsig,hier,level,rs) for _ in range(100)])
        print(f"K={K} m={m} hier={hier} level={level} gsig={gsig}: AA strict {fp:.3f}  2% strict {tp:.2f}",flush=True)
