# unchecked@clang19-native: the WMA inner loop (port_wma)
# clang-19 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -march=native -S -o /work/main/build/gap/asm/unchecked.clang19-native.s variants/unchecked.c
.LBB1_16:                               #   Parent Loop BB1_12 Depth=1
                                        # =>  This Inner Loop Header: Depth=2
	leaq	-3(%rdi), %r8
	vcvtsi2sd	%r8, %xmm4, %xmm2
	vmulsd	-32(%r15,%rdi,8), %xmm2, %xmm2
	leaq	-2(%rdi), %r8
	vcvtsi2sd	%r8, %xmm4, %xmm3
	vaddsd	%xmm2, %xmm1, %xmm1
	vmulsd	-24(%r15,%rdi,8), %xmm3, %xmm2
	leaq	-1(%rdi), %r8
	vcvtsi2sd	%r8, %xmm4, %xmm3
	vaddsd	%xmm2, %xmm1, %xmm1
	vmulsd	-16(%r15,%rdi,8), %xmm3, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	vcvtsi2sd	%rdi, %xmm4, %xmm2
	vmulsd	-8(%r15,%rdi,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	1(%rdi), %r8
	vcvtsi2sd	%r8, %xmm4, %xmm2
	vmulsd	(%r15,%rdi,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	2(%rdi), %r8
	vcvtsi2sd	%r8, %xmm4, %xmm2
	vmulsd	8(%r15,%rdi,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	3(%rdi), %r8
	vcvtsi2sd	%r8, %xmm4, %xmm2
	vmulsd	16(%r15,%rdi,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	4(%rdi), %r8
	vcvtsi2sd	%r8, %xmm4, %xmm2
	vmulsd	24(%r15,%rdi,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	leaq	8(%rsi,%rdi), %r8
	addq	$8, %rdi
	cmpq	$4, %r8
	jne	.LBB1_16
