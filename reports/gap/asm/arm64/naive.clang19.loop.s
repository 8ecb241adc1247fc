// naive@clang19 for apple-m2: the WMA inner loop (port_wma)
// clang-19 --target=aarch64-linux-gnu -mcpu=apple-m2 -O3 -ffp-contract=off -S
.LBB1_15:                               //   Parent Loop BB1_12 Depth=1
                                        // =>  This Inner Loop Header: Depth=2
	fmov	x1, d7
	add	x1, x17, x1, lsl #3
	ldp	q16, q17, [x1]
	ldp	q18, q19, [x1, #32]
	add	v20.2d, v7.2d, v1.2d
	add	v21.2d, v7.2d, v2.2d
	add	v22.2d, v7.2d, v3.2d
	add	v23.2d, v7.2d, v5.2d
	ucvtf	v20.2d, v20.2d
	ucvtf	v21.2d, v21.2d
	ucvtf	v22.2d, v22.2d
	ucvtf	v23.2d, v23.2d
	fmul	v16.2d, v16.2d, v20.2d
	mov	d20, v16.d[1]
	fmul	v17.2d, v17.2d, v21.2d
	mov	d21, v17.d[1]
	fmul	v18.2d, v18.2d, v22.2d
	mov	d22, v18.d[1]
	fmul	v19.2d, v19.2d, v23.2d
	mov	d23, v19.d[1]
	fadd	d6, d6, d16
	fadd	d6, d6, d20
	fadd	d6, d6, d17
	fadd	d6, d6, d21
	fadd	d6, d6, d18
	fadd	d6, d6, d22
	fadd	d6, d6, d19
	fadd	d6, d6, d23
	dup	v16.2d, x13
	add	v7.2d, v7.2d, v16.2d
	subs	x18, x18, #8
	b.ne	.LBB1_15
