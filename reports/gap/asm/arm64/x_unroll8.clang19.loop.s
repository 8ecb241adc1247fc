// x_unroll8@clang19 for apple-m2: the WMA inner loop (port_wma)
// clang-19 --target=aarch64-linux-gnu -mcpu=apple-m2 -O3 -ffp-contract=off -S
.LBB1_16:                               //   Parent Loop BB1_13 Depth=1
                                        // =>  This Inner Loop Header: Depth=2
	sub	x14, x12, #3
	ucvtf	d2, x14
	ldp	d3, d4, [x13, #-32]
	fmul	d2, d3, d2
	sub	x14, x12, #2
	ucvtf	d3, x14
	fadd	d1, d1, d2
	fmul	d2, d4, d3
	fadd	d1, d1, d2
	sub	x14, x12, #1
	ucvtf	d2, x14
	ldp	d3, d4, [x13, #-16]
	fmul	d2, d3, d2
	fadd	d1, d1, d2
	ucvtf	d2, x12
	fmul	d2, d4, d2
	fadd	d1, d1, d2
	add	x14, x12, #1
	ucvtf	d2, x14
	ldp	d3, d4, [x13]
	fmul	d2, d3, d2
	fadd	d1, d1, d2
	add	x14, x12, #2
	ucvtf	d2, x14
	fmul	d2, d4, d2
	fadd	d1, d1, d2
	add	x14, x12, #3
	ucvtf	d2, x14
	ldp	d3, d4, [x13, #16]
	fmul	d2, d3, d2
	fadd	d1, d1, d2
	add	x14, x12, #4
	ucvtf	d2, x14
	fmul	d2, d4, d2
	fadd	d1, d1, d2
	add	x12, x12, #8
	add	x14, x10, x12
	add	x13, x13, #64
	cmp	x14, #4
	b.ne	.LBB1_16
