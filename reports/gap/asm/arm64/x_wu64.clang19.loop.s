// x_wu64@clang19 for apple-m2: the WMA inner loop (port_wma)
// clang-19 --target=aarch64-linux-gnu -mcpu=apple-m2 -O3 -ffp-contract=off -S
.LBB1_12:                               //   Parent Loop BB1_11 Depth=1
                                        // =>  This Inner Loop Header: Depth=2
	ldr	d2, [x9], #8
	mov	x12, x10
	//APP
	//NO_APP
	ucvtf	d3, x12
	fmul	d2, d2, d3
	fadd	d1, d1, d2
	add	x10, x10, #1
	subs	x11, x11, #1
	b.ne	.LBB1_12
