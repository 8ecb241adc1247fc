; rust_safe@native: the WMA inner loop's LLVM IR block
; cargo rustc --release --lib -- --emit asm,llvm-ir; RUSTFLAGS='-C target-cpu=native'
bb9.us:                                           ; preds = %bb7.us, %bb3.us
  %iter1.sroa.0.012.us = phi i64 [ 0, %bb7.us ], [ %14, %bb3.us ]
  %s.sroa.0.011.us = phi double [ 0.000000e+00, %bb7.us ], [ %16, %bb3.us ]
  %_16.us = add nuw nsw i64 %iter1.sroa.0.012.us, %_17.us
  %exitcond.not = icmp eq i64 %iter1.sroa.0.012.us, %indvars.iv
  br i1 %exitcond.not, label %panic2, label %bb3.us

bb3.us:                                           ; preds = %bb9.us
  %14 = add nuw nsw i64 %iter1.sroa.0.012.us, 1
  %15 = getelementptr inbounds nuw double, ptr %x.0, i64 %_16.us
  %_15.us = load double, ptr %15, align 8, !noundef !3
  %_20.us = uitofp nneg i64 %14 to double
  %_14.us = fmul double %_15.us, %_20.us
  %16 = fadd double %s.sroa.0.011.us, %_14.us
  %exitcond17.not = icmp eq i64 %14, %w
  br i1 %exitcond17.not, label %bb2.bb10_crit_edge.us, label %bb9.us
