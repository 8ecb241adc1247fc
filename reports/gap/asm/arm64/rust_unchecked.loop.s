// rust_unchecked for apple-m2: the WMA inner loop (__ZN13hma_rust_peer9unchecked5sweep17hfaeeffab7c733b03E)
// rustc unoptimised IR -> LLVM 22 O3 for apple-m2
LBB19_36:
	dup.2d	v3, x19
	add.2d	v3, v2, v3
	dup.2d	v4, x28
	add.2d	v4, v2, v4
	dup.2d	v5, x27
	add.2d	v5, v2, v5
	dup.2d	v6, x26
	add.2d	v6, v2, v6
	ldp	q7, q16, [x13, #-32]
	ldp	q17, q18, [x13], #64
	ucvtf.2d	v3, v3
	ucvtf.2d	v4, v4
	ucvtf.2d	v5, v5
	ucvtf.2d	v6, v6
	fmul.2d	v3, v7, v3
	mov	d7, v3[1]
	fmul.2d	v4, v16, v4
	mov	d16, v4[1]
	fmul.2d	v5, v17, v5
	mov	d17, v5[1]
	fmul.2d	v6, v18, v6
	mov	d18, v6[1]
	fadd	d1, d1, d3
	fadd	d1, d1, d7
	fadd	d1, d1, d4
	fadd	d1, d1, d16
	fadd	d1, d1, d5
	fadd	d1, d1, d17
	fadd	d1, d1, d6
	fadd	d1, d1, d18
	dup.2d	v3, x21
	add.2d	v2, v2, v3
	subs	x12, x12, #8
	b.ne	LBB19_36
