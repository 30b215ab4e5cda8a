import numpy as np
def trial(G,K,m,sig,eff,rs,B=400):
    # heavy-tailed noise + 32ns quantization on a 10us kernel
    def draw(n,e): 
        x=10.0*(1+e)*np.exp(rs.normal(0,sig,n)); x+= (rs.random(n)<0.05)*rs.exponential(0.5,n); return np.round(x/0.032)*0.032
    bl=[[draw(2*m,eff) for k in range(K)] for g in range(G)]; cl=[[draw(2*m,0) for k in range(K)] for g in range(G)]
    rat=[]
    for _ in range(B):
        pb=[];pc=[]
        for g in rs.integers(0,G,G):
            for k in rs.integers(0,K,K): pb.append(bl[g][k]); pc.append(cl[g][k])
        rat.append(np.median(np.concatenate(pb))/np.median(np.concatenate(pc)))
    return np.quantile(rat,[0.025,0.005])
for (K,m) in [(2,5),(6,2),(4,3),(8,2)]:
    rs=np.random.default_rng(11)
    aa=np.array([trial(3,K,m,0.01,0,rs) for _ in range(600)])
    tp=np.array([trial(3,K,m,0.01,0.02,rs) for _ in range(150)])
    print(f"K={K} m={m}: AA strict95 {np.mean(aa[:,0]>1):.4f} strict99 {np.mean(aa[:,1]>1):.4f} | 2% strict95 {np.mean(tp[:,0]>1):.3f} strict99 {np.mean(tp[:,1]>1):.3f}",flush=True)
