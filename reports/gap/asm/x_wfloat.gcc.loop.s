# x_wfloat@gcc: the WMA inner loop (port_wma.constprop.0)
# gcc -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/x_wfloat.gcc.s variants/x_wfloat.c
.L12:
	addsd	%xmm3, %xmm0
	movsd	8(%rax), %xmm2
	addq	$8, %rax
	mulsd	%xmm0, %xmm2
	addsd	%xmm2, %xmm1
	cmpq	%rdx, %rax
	jne	.L12
