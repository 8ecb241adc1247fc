// numba for apple-m2: the WMA inner loop (__ZN9hma_numba3wmaB2v1B38c8tJTIeFIjxB2IKSgI4CrvQClQZ6FczSBAA_3dE5ArrayIdLi1E1C7mutable7alignedEx)
// numba unoptimised IR -> LLVM 22 O3 for apple-m2
LBB4_9:
	add.2d	v17, v16, v2
	add.2d	v18, v16, v3
	add.2d	v19, v16, v4
	add.2d	v20, v16, v5
	ldp	q21, q22, [x12, #-32]
	ldp	q23, q24, [x12], #64
	ucvtf.2d	v17, v17
	ucvtf.2d	v18, v18
	ucvtf.2d	v19, v19
	ucvtf.2d	v20, v20
	fmul.2d	v17, v21, v17
	mov	d21, v17[1]
	fmul.2d	v18, v22, v18
	mov	d22, v18[1]
	fmul.2d	v19, v23, v19
	mov	d23, v19[1]
	fmul.2d	v20, v24, v20
	mov	d24, v20[1]
	fadd	d7, d7, d17
	fadd	d7, d7, d21
	fadd	d7, d7, d18
	fadd	d7, d7, d22
	fadd	d7, d7, d19
	fadd	d7, d7, d23
	fadd	d7, d7, d20
	fadd	d7, d7, d24
	add.2d	v16, v16, v6
	subs	x13, x13, #8
	b.ne	LBB4_9
