import json,glob,sys,numpy as np
import scipy.stats as st
f=sys.argv[1]; m=5; K=2
s=json.load(open(glob.glob(f+'.*.samples.json')[0]))
rs=np.random.default_rng(3)
for rid,r in sorted(s['rows'].items()):
  for p in r['pairs']:
    B=[np.array(g) for g in p['baseline']]; C=[np.array(g) for g in p['candidate']]
    G=len(B); bl=[[g[k*2*m:(k+1)*2*m] for k in range(K)] for g in B]; cl=[[g[k*2*m:(k+1)*2*m] for k in range(K)] for g in C]
    pooled=np.median(np.concatenate(B))/np.median(np.concatenate(C))
    rat=[]
    for _ in range(2000):
      gs=rs.integers(0,G,G); pb=[];pc=[]
      for g in gs:
        for k in rs.integers(0,K,K): pb.append(bl[g][k]); pc.append(cl[g][k])
      rat.append(np.median(np.concatenate(pb))/np.median(np.concatenate(pc)))
    lo95,hi95=np.quantile(rat,[0.025,0.975]); lo99,hi99=np.quantile(rat,[0.005,0.995])
    lb=np.array([np.log(np.median(bl[g][k])/np.median(cl[g][k])) for g in range(G) for k in range(K)])
    n=len(lb); h=st.t.ppf(0.975,n-1)*lb.std(ddof=1)/np.sqrt(n)
    gm=np.array([np.log(np.median(B[g])/np.median(C[g])) for g in range(G)]); hg=st.t.ppf(0.975,G-1)*gm.std(ddof=1)/np.sqrt(G)
    print(f"{rid:24s} r={pooled:.4f} hb95=[{lo95:.4f},{hi95:.4f}] hb99=[{lo99:.4f},{hi99:.4f}] tblk=[{np.exp(lb.mean()-h):.4f},{np.exp(lb.mean()+h):.4f}] tgrp=[{np.exp(gm.mean()-hg):.4f},{np.exp(gm.mean()+hg):.4f}]")
