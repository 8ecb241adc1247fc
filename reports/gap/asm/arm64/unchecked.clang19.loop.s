// unchecked@clang19 for apple-m2: the WMA inner loop (port_wma)
// clang-19 --target=aarch64-linux-gnu -mcpu=apple-m2 -O3 -ffp-contract=off -S
.LBB1_16:                               //   Parent Loop BB1_13 Depth=1
                                        // =>  This Inner Loop Header: Depth=2
	ldp	q17, q18, [x12, #-32]
	ldp	q19, q20, [x12], #64
	add	v21.2d, v16.2d, v2.2d
	add	v22.2d, v16.2d, v3.2d
	add	v23.2d, v16.2d, v4.2d
	add	v24.2d, v16.2d, v5.2d
	ucvtf	v21.2d, v21.2d
	ucvtf	v22.2d, v22.2d
	ucvtf	v23.2d, v23.2d
	ucvtf	v24.2d, v24.2d
	fmul	v17.2d, v17.2d, v21.2d
	mov	d21, v17.d[1]
	fmul	v18.2d, v18.2d, v22.2d
	mov	d22, v18.d[1]
	fmul	v19.2d, v19.2d, v23.2d
	mov	d23, v19.d[1]
	fmul	v20.2d, v20.2d, v24.2d
	mov	d24, v20.d[1]
	fadd	d7, d7, d17
	fadd	d7, d7, d21
	fadd	d7, d7, d18
	fadd	d7, d7, d22
	fadd	d7, d7, d19
	fadd	d7, d7, d23
	fadd	d7, d7, d20
	fadd	d7, d7, d24
	add	v16.2d, v16.2d, v6.2d
	subs	x11, x11, #8
	b.ne	.LBB1_16
