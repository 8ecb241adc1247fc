# rust_safe@native: the WMA inner loop (_ZN13hma_rust_peer4safe3wma17h06a2a14de7112ac7E)
# cargo rustc --release --lib -- --emit asm,llvm-ir; RUSTFLAGS='-C target-cpu=native'
.LBB17_14:
	cmpq	%rdi, %rsi
	je	.LBB17_19
	leaq	1(%rdi), %r9
	vcvtsi2sd	%r9, %xmm15, %xmm2
	vmulsd	(%r13,%rdi,8), %xmm2, %xmm2
	vaddsd	%xmm2, %xmm1, %xmm1
	movq	%r9, %rdi
	cmpq	%r9, %r12
	jne	.LBB17_14
