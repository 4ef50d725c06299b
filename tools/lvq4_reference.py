#!/usr/bin/env python3
"""Independent reference for the LVQ4 encode rule (docs/format/ivf-build-algorithms.md
"LVQ encode"): min/max codes, then up to 4 least-squares refits, each kept only if the
squared error strictly drops. float32 arithmetic is emulated by rounding every double
result to float32 (exact for one +, -, *, / of floats). Prints offset, scale, code bytes
and decoded values (hex floats) for the vectors pinned in src/ivf/lvq_test.cc.

    tools/lvq4_reference.py
"""
import struct, math
def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]
def lround(t): return int(math.floor(t + 0.5)) if t >= 0 else -int(math.floor(-t + 0.5))
def quant(v, off, sc, L=15):
    codes=[]; err=0.0
    for x in v:
        t = f32(f32(x - off) / sc)
        t = min(max(t, 0.0), float(L))
        c = lround(t); codes.append(c)
        dec = f32(off + f32(sc * c))
        err += (x - dec) ** 2
    return codes, err
def enc(v):
    v=[f32(x) for x in v]
    lo=min(v); rng=f32(max(v)-lo); sc=f32(rng/15)
    codes, err = quant(v, lo, sc)
    p=(lo, sc)
    for _ in range(4):
        n=float(len(v)); s_c=s_v=s_cc=s_cv=0.0
        for c,x in zip(codes, v):
            s_c+=c; s_v+=x; s_cc+=c*c; s_cv+=c*x
        den=n*s_cc-s_c*s_c
        if not den>0: break
        scale=(n*s_cv-s_c*s_v)/den; offset=(s_v-scale*s_c)/n
        np_=(f32(offset), f32(scale))
        if not np_[1]>0: break
        c2,e2=quant(v, *np_)
        if not e2<err: break
        p=np_; err=e2; codes=c2
    code=bytearray((len(v)+1)//2)
    for i,c in enumerate(codes): code[i//2] |= c << ((i&1)*4)
    dec=[f32(p[0]+f32(p[1]*c)) for c in codes]
    return p, code.hex(), [x.hex() for x in dec], [float.hex(x) for x in p]
for v in ([2.0,0.0,1.5,6.0,4.5],[0.1,-0.35,0.7,0.2,-0.9],[0.0,1.0,2.0,3.0]):
    print(enc(v))
