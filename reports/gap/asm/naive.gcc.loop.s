# naive@gcc: the WMA inner loop (port_wma.isra.0)
# gcc -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/naive.gcc.s variants/naive.c
.L10:
	leaq	(%rsi,%rax), %rdx
	cmpq	%rbx, %rdx
	jnb	.L20
.L9:
	movsd	8(%rcx,%rax,8), %xmm2
	pxor	%xmm0, %xmm0
	addq	$1, %rax
	cvtsi2sdq	%rax, %xmm0
	mulsd	%xmm2, %xmm0
	addsd	%xmm0, %xmm1
	cmpq	%rax, %r12
	jne	.L10
