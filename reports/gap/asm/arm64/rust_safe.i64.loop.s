// rust_safe@i64 for apple-m2: the WMA inner loop (__ZN13hma_rust_peer4safe3wma17h06a2a14de7112ac7E)
// rustc unoptimised IR (i64 patch) -> LLVM 22 O3 for apple-m2
LBB17_10:
	add.2d	v16, v7, v1
	add.2d	v17, v7, v2
	add.2d	v18, v7, v3
	add.2d	v19, v7, v5
	ldp	q20, q21, [x16, #-32]
	ldp	q22, q23, [x16], #64
	ucvtf.2d	v16, v16
	ucvtf.2d	v17, v17
	ucvtf.2d	v18, v18
	ucvtf.2d	v19, v19
	fmul.2d	v16, v20, v16
	mov	d20, v16[1]
	fmul.2d	v17, v21, v17
	mov	d21, v17[1]
	fmul.2d	v18, v22, v18
	mov	d22, v18[1]
	fmul.2d	v19, v23, v19
	mov	d23, v19[1]
	fadd	d6, d6, d16
	fadd	d6, d6, d20
	fadd	d6, d6, d17
	fadd	d6, d6, d21
	fadd	d6, d6, d18
	fadd	d6, d6, d22
	fadd	d6, d6, d19
	fadd	d6, d6, d23
	dup.2d	v16, x11
	add.2d	v7, v7, v16
	subs	x15, x15, #8
	b.ne	LBB17_10
