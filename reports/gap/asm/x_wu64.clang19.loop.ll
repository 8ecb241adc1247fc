; x_wu64@clang19: the WMA inner loop's LLVM IR block
; clang-19 -O3 -DNDEBUG -ffp-contract=off -Ikernels -Ivariants -Isimd -S -o /work/main/build/gap/asm/x_wu64.clang19.s variants/x_wu64.c
45:                                               ; preds = %41, %45
  %46 = phi i64 [ 0, %41 ], [ %50, %45 ]
  %47 = phi double [ 0.000000e+00, %41 ], [ %54, %45 ]
  %48 = getelementptr double, ptr %44, i64 %46
  %49 = load double, ptr %48, align 8, !tbaa !9
  %50 = add nuw nsw i64 %46, 1
  %51 = tail call i64 asm "", "=r,0,~{dirflag},~{fpsr},~{flags}"(i64 %50) #9, !srcloc !23
  %52 = uitofp i64 %51 to double
  %53 = fmul double %49, %52
  %54 = fadd double %47, %53
  %55 = icmp eq i64 %50, %2
  br i1 %55, label %56, label %45, !llvm.loop !24
