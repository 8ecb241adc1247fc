; x_wu64@clang14: the WMA inner loop's LLVM IR block
; clang-14 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/x_wu64.clang14.s variants/x_wu64.c
102:                                              ; preds = %100, %102
  %103 = phi i64 [ 0, %100 ], [ %105, %102 ]
  %104 = phi double [ 0.000000e+00, %100 ], [ %113, %102 ]
  %105 = add nuw nsw i64 %103, 1
  %106 = sub i64 %105, %2
  %107 = add i64 %106, %101
  %108 = getelementptr inbounds double, double* %0, i64 %107
  %109 = load double, double* %108, align 8, !tbaa !11
  %110 = tail call i64 asm "", "=r,0,~{dirflag},~{fpsr},~{flags}"(i64 %105) #8, !srcloc !43
  %111 = uitofp i64 %110 to double
  %112 = fmul double %109, %111
  %113 = fadd double %104, %112
  %114 = icmp eq i64 %105, %2
  br i1 %114, label %115, label %102, !llvm.loop !44
