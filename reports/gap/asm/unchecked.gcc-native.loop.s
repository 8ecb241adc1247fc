# unchecked@gcc-native: the WMA inner loop (port_wma.constprop.0)
# gcc -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -march=native -S -o /work/main/build/gap/asm/unchecked.gcc-native.s variants/unchecked.c
.L13:
	vmovdqa	%ymm4, %ymm2
	vpaddq	%ymm5, %ymm2, %ymm2
	vcvtqq2pd	%ymm2, %ymm2
	vmulpd	(%rax), %ymm2, %ymm2
	addq	$32, %rax
	vpaddq	%ymm6, %ymm4, %ymm4
	vaddsd	%xmm1, %xmm2, %xmm0
	vunpckhpd	%xmm2, %xmm2, %xmm1
	vaddsd	%xmm1, %xmm0, %xmm0
	vextractf64x2	$1, %ymm2, %xmm1
	valignq	$3, %ymm2, %ymm2, %ymm2
	vaddsd	%xmm1, %xmm0, %xmm1
	vaddsd	%xmm2, %xmm1, %xmm1
	cmpq	%rcx, %rax
	jne	.L13
