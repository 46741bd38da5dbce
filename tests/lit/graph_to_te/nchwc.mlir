// convert-graph-to-te on the blocked NCHW[x]c layout's ops. A layout transform is one
// injective compute that goes through the flat channel c: to NCHW{b}c it reads channel
// co * b + ci, from NCHW{a}c it reads [c // a, ..., c % a]. graph.conv_nchwc is graph.conv's
// three computes on blocked tensors: padding on H and W only, ONE reduction whose loops the
// conv schedule names (i0..i4 = n, mo, oh, ow, mi; r0..r3 = co, kh, kw, ci, in that order;
// a depthwise conv keeps co and ci, of extent 1), and the bias read at the flat channel
// mo * mb + mi. convert-graph-to-te attaches no schedule: the conv's and the pool's main
// compute is marked te.templated, a conv with a bias makes a te.fused kernel whose reduction
// is the "anchor". The SCHED prefix checks the default schedules te-default-schedule then
// attaches: the transpose template's for layout transforms, conv_nchwc's for the convs, and
// pool_nchwc's for a pool on blocked data.
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te | filecheck %s
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te,te-default-schedule | filecheck %s --check-prefix=SCHED

// NCHW -> NCHW16c: y[n, co, h, w, ci] = x[n, co * 16 + ci, h, w]. The transpose schedule
// template's default (schedules/transpose.py): a tile of all 5 pixels (w, the axis x is
// contiguous along) x the 16 channels of a block, the pixel loop unrolled.
// CHECK-LABEL: func.func @layout_transform_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x32x5x5xf32>) -> tensor<1x2x5x5x16xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[N:\w+]], %[[CO:\w+]], %[[H:\w+]], %[[W:\w+]], %[[CI:\w+]]) in [1, 2, 5, 5, 16] : tensor<1x2x5x5x16xf32> {
// CHECK-NEXT:      %[[B:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[C0:\w+]] = arith.muli %[[CO]], %[[B]] : index
// CHECK-NEXT:      %[[C:\w+]] = arith.addi %[[C0]], %[[CI]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[N]], %[[C]], %[[H]], %[[W]]] : tensor<1x32x5x5xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x5x5x16xf32>
// SCHED-LABEL: func.func @layout_transform_0(
// SCHED-NEXT:    te.compute (%{{.*}}) in [1, 2, 5, 5, 16] {schedule = [#te.unroll<"i3">]} : tensor<1x2x5x5x16xf32> {
func.func @main(%x: tensor<1x32x5x5xf32>) -> tensor<1x2x5x5x16xf32> {
  %0 = graph.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : tensor<1x32x5x5xf32> -> tensor<1x2x5x5x16xf32>
  func.return %0 : tensor<1x2x5x5x16xf32>
}

// -----

// NCHW16c -> NCHW: y[n, c, h, w] = x[n, c // 16, h, w, c - (c // 16) * 16]. Tiles of 16
// channels (c, the axis x is contiguous along) x all 5 pixels, the channel loop unrolled.
// CHECK-LABEL: func.func @layout_transform_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x5x5x16xf32>) -> tensor<1x32x5x5xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[N:\w+]], %[[C:\w+]], %[[H:\w+]], %[[W:\w+]]) in [1, 32, 5, 5] : tensor<1x32x5x5xf32> {
// CHECK-NEXT:      %[[B:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[CO:\w+]] = arith.floordivsi %[[C]], %[[B]] : index
// CHECK-NEXT:      %[[B2:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[C0:\w+]] = arith.muli %[[CO]], %[[B2]] : index
// CHECK-NEXT:      %[[CI:\w+]] = arith.subi %[[C]], %[[C0]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[N]], %[[CO]], %[[H]], %[[W]], %[[CI]]] : tensor<1x2x5x5x16xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x32x5x5xf32>
// SCHED-LABEL: func.func @layout_transform_0(
// SCHED-NEXT:    te.compute (%{{.*}}) in [1, 32, 5, 5] {schedule = [#te.split<"i1", 16>, #te.reorder<["i0", "i1.o", "i2", "i1.i", "i3"]>, #te.unroll<"i1.i">]} : tensor<1x32x5x5xf32> {
func.func @main(%x: tensor<1x2x5x5x16xf32>) -> tensor<1x32x5x5xf32> {
  %0 = graph.layout_transform %x {src_layout = "NCHW16c", dst_layout = "NCHW"} : tensor<1x2x5x5x16xf32> -> tensor<1x32x5x5xf32>
  func.return %0 : tensor<1x32x5x5xf32>
}

// -----

// NCHW16c -> NCHW8c (re-blocking): the flat channel c = co * 8 + ci, read at [c // 16, c % 16].
// The source's contiguous dim runs along the output's innermost one: no transpose, so
// te-default-schedule leaves it in the plain order.
// CHECK-LABEL: func.func @layout_transform_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x5x5x16xf32>) -> tensor<1x4x5x5x8xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[N:\w+]], %[[CO:\w+]], %[[H:\w+]], %[[W:\w+]], %[[CI:\w+]]) in [1, 4, 5, 5, 8] : tensor<1x4x5x5x8xf32> {
// CHECK-NEXT:      %[[B:\w+]] = arith.constant 8 : index
// CHECK-NEXT:      %[[C0:\w+]] = arith.muli %[[CO]], %[[B]] : index
// CHECK-NEXT:      %[[C:\w+]] = arith.addi %[[C0]], %[[CI]] : index
// CHECK-NEXT:      %[[A:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[SO:\w+]] = arith.floordivsi %[[C]], %[[A]] : index
// CHECK-NEXT:      %[[A2:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[S0:\w+]] = arith.muli %[[SO]], %[[A2]] : index
// CHECK-NEXT:      %[[SI:\w+]] = arith.subi %[[C]], %[[S0]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[N]], %[[SO]], %[[H]], %[[W]], %[[SI]]] : tensor<1x2x5x5x16xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x5x5x8xf32>
// SCHED-LABEL: func.func @layout_transform_0(
// SCHED-NEXT:    te.compute (%{{.*}}) in [1, 4, 5, 5, 8] : tensor<1x4x5x5x8xf32> {
func.func @main(%x: tensor<1x2x5x5x16xf32>) -> tensor<1x4x5x5x8xf32> {
  %0 = graph.layout_transform %x {src_layout = "NCHW16c", dst_layout = "NCHW8c"} : tensor<1x2x5x5x16xf32> -> tensor<1x4x5x5x8xf32>
  func.return %0 : tensor<1x4x5x5x8xf32>
}

// -----

// conv_nchwc with pads 1, strides 2, dilations (1, 2) and a bias: (1) the input zero-padded on
// dims 2 and 3 only (5x5 -> 7x7; n, the channel block and ci pass through), (2) the window
// sum: padded[n, co, oh * 2 + kh, ow * 2 + kw * 2, ci] * w[mo, co, kh, kw, ci, mi] over
// (co, kh, kw, ci) in [C/cb, KH, KW, cb], the te.templated "anchor" of a te.fused kernel,
// (3) the bias at mo * 16 + mi. Scheduled (SCHED): the conv_nchwc template's default (a row
// of ow_block = 2 pixels x 2 channel blocks in registers, as the row is short; the outer
// channel blocks and rows fused into the parallel loop), and the bias attached at i0 (a
// compute_at consumer cannot share the split channel axis).
// CHECK-LABEL: func.func @conv_nchwc_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x5x5x16xf32>, %[[WT:\w+]]: tensor<2x2x3x3x16x16xf32>, %[[BIAS:\w+]]: tensor<32xf32>) -> tensor<1x2x3x2x16xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[PAD:\w+]] = te.compute (%[[N:\w+]], %[[C:\w+]], %[[H:\w+]], %[[V:\w+]], %[[CI:\w+]]) in [1, 2, 7, 7, 16] : tensor<1x2x7x7x16xf32> {
// CHECK-NEXT:      %[[ONE:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[HS:\w+]] = arith.subi %[[H]], %[[ONE]] : index
// CHECK-NEXT:      %[[ONE2:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[VS:\w+]] = arith.subi %[[V]], %[[ONE2]] : index
// CHECK-NEXT:      %[[Z0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[HLO:\w+]] = arith.cmpi sge, %[[HS]], %[[Z0]] : index
// CHECK-NEXT:      %[[Z1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[HC0:\w+]] = arith.maxsi %[[HS]], %[[Z1]] : index
// CHECK-NEXT:      %[[FIVE:\w+]] = arith.constant 5 : index
// CHECK-NEXT:      %[[HHI:\w+]] = arith.cmpi slt, %[[HS]], %[[FIVE]] : index
// CHECK-NEXT:      %[[FOUR:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[HC:\w+]] = arith.minsi %[[HC0]], %[[FOUR]] : index
// CHECK:           %[[VLO:\w+]] = arith.cmpi sge, %[[VS]], %{{\w+}} : index
// CHECK:           %[[VC0:\w+]] = arith.maxsi %[[VS]], %{{\w+}} : index
// CHECK:           %[[VHI:\w+]] = arith.cmpi slt, %[[VS]], %{{\w+}} : index
// CHECK:           %[[VC:\w+]] = arith.minsi %[[VC0]], %{{\w+}} : index
// CHECK-NEXT:      %[[IN0:\w+]] = arith.andi %[[HLO]], %[[HHI]] : i1
// CHECK-NEXT:      %[[IN1:\w+]] = arith.andi %[[IN0]], %[[VLO]] : i1
// CHECK-NEXT:      %[[IN:\w+]] = arith.andi %[[IN1]], %[[VHI]] : i1
// CHECK-NEXT:      %[[XV:\w+]] = te.read %[[X]][%[[N]], %[[C]], %[[HC]], %[[VC]], %[[CI]]] : tensor<1x2x5x5x16xf32>
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[PV:\w+]] = arith.select %[[IN]], %[[XV]], %[[Z]] : f32
// CHECK-NEXT:      te.yield %[[PV]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ACC:\w+]] = te.compute "anchor" (%[[N:i0\w*]], %[[MO:i1\w*]], %[[OH:i2\w*]], %[[OW:i3\w*]], %[[MI:i4\w*]]) in [1, 2, 3, 2, 16] sum (%[[CO:r0\w*]], %[[KH:r1\w*]], %[[KW:r2\w*]], %[[CI:r3\w*]]) in [2, 3, 3, 16] {te.templated} : tensor<1x2x3x2x16xf32> {
// CHECK-NEXT:      %[[SH:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[PH0:\w+]] = arith.muli %[[OH]], %[[SH]] : index
// CHECK-NEXT:      %[[PH:\w+]] = arith.addi %[[PH0]], %[[KH]] : index
// CHECK-NEXT:      %[[SW:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[PW0:\w+]] = arith.muli %[[OW]], %[[SW]] : index
// CHECK-NEXT:      %[[DW:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[PW1:\w+]] = arith.muli %[[KW]], %[[DW]] : index
// CHECK-NEXT:      %[[PW:\w+]] = arith.addi %[[PW0]], %[[PW1]] : index
// CHECK-NEXT:      %[[XP:\w+]] = te.read %[[PAD]][%[[N]], %[[CO]], %[[PH]], %[[PW]], %[[CI]]] : tensor<1x2x7x7x16xf32>
// CHECK-NEXT:      %[[WV:\w+]] = te.read %[[WT]][%[[MO]], %[[CO]], %[[KH]], %[[KW]], %[[CI]], %[[MI]]] : tensor<2x2x3x3x16x16xf32>
// CHECK-NEXT:      %[[T:\w+]] = arith.mulf %[[XP]], %[[WV]] : f32
// CHECK-NEXT:      te.yield %[[T]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[N:\w+]], %[[MO:\w+]], %[[OH:\w+]], %[[OW:\w+]], %[[MI:\w+]]) in [1, 2, 3, 2, 16] : tensor<1x2x3x2x16xf32> {
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[ACC]][%[[N]], %[[MO]], %[[OH]], %[[OW]], %[[MI]]] : tensor<1x2x3x2x16xf32>
// CHECK-NEXT:      %[[MB:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[M0:\w+]] = arith.muli %[[MO]], %[[MB]] : index
// CHECK-NEXT:      %[[M:\w+]] = arith.addi %[[M0]], %[[MI]] : index
// CHECK-NEXT:      %[[BV:\w+]] = te.read %[[BIAS]][%[[M]]] : tensor<32xf32>
// CHECK-NEXT:      %[[SUM:\w+]] = arith.addf %[[S]], %[[BV]] : f32
// CHECK-NEXT:      te.yield %[[SUM]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x3x2x16xf32>
// SCHED-LABEL: func.func @conv_nchwc_0(
// SCHED-SAME:      attributes {te.kernel, te.fused} {
// SCHED-NEXT:    %[[PAD:\w+]] = te.compute (%{{.*}}) in [1, 2, 7, 7, 16] : tensor<1x2x7x7x16xf32> {
// SCHED:         %[[ACC:\w+]] = te.compute "anchor" (%{{.*}}) in [1, 2, 3, 2, 16] sum (%{{.*}}) in [2, 3, 3, 16] {te.templated, schedule = [#te.split<"i3", 2>, #te.split<"i1", 2>, #te.reorder<["i0", "i1.o", "i2", "i3.o", "r0", "r1", "r2", "r3", "i1.i", "i3.i", "i4"]>, #te.fuse<"i1.o", "i2">, #te.unroll<"i1.i">, #te.unroll<"i3.i">, #te.vectorize<"i4">]} : tensor<1x2x3x2x16xf32> {
// SCHED:         %[[Y:\w+]] = te.compute (%{{.*}}) in [1, 2, 3, 2, 16] {schedule = [#te.compute_at<"anchor", "i0">, #te.vectorize<"i4">]} : tensor<1x2x3x2x16xf32> {
// SCHED-NEXT:      te.read %[[ACC]]
func.func @main(%x: tensor<1x2x5x5x16xf32>, %w: tensor<2x2x3x3x16x16xf32>, %b: tensor<32xf32>) -> tensor<1x2x3x2x16xf32> {
  %0 = graph.conv_nchwc %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 2>} : (tensor<1x2x5x5x16xf32>, tensor<2x2x3x3x16x16xf32>, tensor<32xf32>) -> tensor<1x2x3x2x16xf32>
  func.return %0 : tensor<1x2x3x2x16xf32>
}

// -----

// A 1x1 conv_nchwc without pads or bias is the reduction alone, and it keeps all four
// reduction axes, the two kernel taps with extent 1, so the schedule's loop names hold
// (te-default-schedule gives it the conv_nchwc default, a row of 3 pixels in registers).
// CHECK-LABEL: func.func @conv_nchwc_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x4x3x3x3xf32>, %[[WT:\w+]]: tensor<1x4x1x1x3x16xf32>) -> tensor<1x1x3x3x16xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[ACC:\w+]] = te.compute (%[[N:i0\w*]], %[[MO:i1\w*]], %[[OH:i2\w*]], %[[OW:i3\w*]], %[[MI:i4\w*]]) in [1, 1, 3, 3, 16] sum (%[[CO:r0\w*]], %[[KH:r1\w*]], %[[KW:r2\w*]], %[[CI:r3\w*]]) in [4, 1, 1, 3] {te.templated} : tensor<1x1x3x3x16xf32> {
// CHECK-NEXT:      %[[PH:\w+]] = arith.addi %[[OH]], %[[KH]] : index
// CHECK-NEXT:      %[[PW:\w+]] = arith.addi %[[OW]], %[[KW]] : index
// CHECK-NEXT:      %[[XP:\w+]] = te.read %[[X]][%[[N]], %[[CO]], %[[PH]], %[[PW]], %[[CI]]] : tensor<1x4x3x3x3xf32>
// CHECK-NEXT:      %[[WV:\w+]] = te.read %[[WT]][%[[MO]], %[[CO]], %[[KH]], %[[KW]], %[[CI]], %[[MI]]] : tensor<1x4x1x1x3x16xf32>
// CHECK-NEXT:      %[[T:\w+]] = arith.mulf %[[XP]], %[[WV]] : f32
// CHECK-NEXT:      te.yield %[[T]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[ACC]] : tensor<1x1x3x3x16xf32>
// SCHED-LABEL: func.func @conv_nchwc_0(
// SCHED-NEXT:    te.compute (%{{.*}}) in [1, 1, 3, 3, 16] sum (%{{.*}}) in [4, 1, 1, 3] {te.templated, schedule = [#te.split<"i3", 3>, #te.reorder<["i0", "i1", "i2", "i3.o", "r0", "r1", "r2", "r3", "i3.i", "i4"]>, #te.fuse<"i1", "i2">, #te.unroll<"i3.i">, #te.vectorize<"i4">]} : tensor<1x1x3x3x16xf32> {
func.func @main(%x: tensor<1x4x3x3x3xf32>, %w: tensor<1x4x1x1x3x16xf32>) -> tensor<1x1x3x3x16xf32> {
  %0 = graph.conv_nchwc %x, %w : (tensor<1x4x3x3x3xf32>, tensor<1x4x1x1x3x16xf32>) -> tensor<1x1x3x3x16xf32>
  func.return %0 : tensor<1x1x3x3x16xf32>
}

// -----

// A depthwise conv_nchwc (group = the 32 channels): output channel (mo, mi) reads input
// channel (mo, mi) alone, so the window read is x[n, mo, oh + kh, ow + kw, mi] (a vector
// along mi under the conv schedule, where a plain conv broadcasts x[.., ci]) and the weight
// w[mo, 0, kh, kw, 0, mi]. co and ci keep their loops, of extent 1, so the conv template's
// default schedule applies unchanged (SCHED).
// CHECK-LABEL: func.func @conv_nchwc_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x4x4x16xf32>, %[[WT:\w+]]: tensor<2x1x3x3x1x16xf32>) -> tensor<1x2x2x2x16xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[ACC:\w+]] = te.compute (%[[N:i0\w*]], %[[MO:i1\w*]], %[[OH:i2\w*]], %[[OW:i3\w*]], %[[MI:i4\w*]]) in [1, 2, 2, 2, 16] sum (%[[CO:r0\w*]], %[[KH:r1\w*]], %[[KW:r2\w*]], %[[CI:r3\w*]]) in [1, 3, 3, 1] {te.templated} : tensor<1x2x2x2x16xf32> {
// CHECK-NEXT:      %[[PH:\w+]] = arith.addi %[[OH]], %[[KH]] : index
// CHECK-NEXT:      %[[PW:\w+]] = arith.addi %[[OW]], %[[KW]] : index
// CHECK-NEXT:      %[[XV:\w+]] = te.read %[[X]][%[[N]], %[[MO]], %[[PH]], %[[PW]], %[[MI]]] : tensor<1x2x4x4x16xf32>
// CHECK-NEXT:      %[[Z0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[Z1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[WV:\w+]] = te.read %[[WT]][%[[MO]], %[[Z0]], %[[KH]], %[[KW]], %[[Z1]], %[[MI]]] : tensor<2x1x3x3x1x16xf32>
// CHECK-NEXT:      %[[T:\w+]] = arith.mulf %[[XV]], %[[WV]] : f32
// CHECK-NEXT:      te.yield %[[T]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[ACC]] : tensor<1x2x2x2x16xf32>
// SCHED-LABEL: func.func @conv_nchwc_0(
// SCHED-NEXT:    te.compute (%{{.*}}) in [1, 2, 2, 2, 16] sum (%{{.*}}) in [1, 3, 3, 1] {te.templated, schedule = [#te.split<"i3", 2>, #te.reorder<["i0", "i1", "i2", "i3.o", "r0", "r1", "r2", "r3", "i3.i", "i4"]>, #te.fuse<"i1", "i2">, #te.unroll<"i3.i">, #te.vectorize<"i4">]} : tensor<1x2x2x2x16xf32> {
func.func @main(%x: tensor<1x2x4x4x16xf32>, %w: tensor<2x1x3x3x1x16xf32>) -> tensor<1x2x2x2x16xf32> {
  %0 = graph.conv_nchwc %x, %w {group = 32 : i64} : (tensor<1x2x4x4x16xf32>, tensor<2x1x3x3x1x16xf32>) -> tensor<1x2x2x2x16xf32>
  func.return %0 : tensor<1x2x2x2x16xf32>
}

// -----

// A pool on blocked data (graph-conv-layout's 3-D pool, its third window dim one wide over
// the block) is te.templated, and te-default-schedule gives it the pool_nchwc template's
// default (SCHED): the window reduced outside the block's
// 16 lanes, which are one vector accumulator per output pixel (the plain nest would reduce
// innermost, one lane at a time).
// CHECK-LABEL: func.func @max_pool_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x9x9x16xf32>) -> tensor<1x2x4x4x16xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[N:i0\w*]], %[[C:i1\w*]], %[[OH:i2\w*]], %[[OW:i3\w*]], %[[B:i4\w*]]) in [1, 2, 4, 4, 16] max (%[[KH:r0\w*]], %[[KW:r1\w*]], %[[K0:r2\w*]]) in [3, 3, 1] {te.templated} : tensor<1x2x4x4x16xf32> {
// CHECK:           %[[V:\w+]] = te.read %[[X]][%[[N]], %[[C]], %{{\w+}}, %{{\w+}}, %{{\w+}}] : tensor<1x2x9x9x16xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x4x4x16xf32>
// SCHED-LABEL: func.func @max_pool_0(
// SCHED-NEXT:    te.compute (%{{.*}}) in [1, 2, 4, 4, 16] max (%{{.*}}) in [3, 3, 1] {te.templated, schedule = [#te.reorder<["i0", "i1", "i2", "i3", "r0", "r1", "r2", "i4"]>, #te.vectorize<"i4">]} : tensor<1x2x4x4x16xf32> {
func.func @main(%x: tensor<1x2x9x9x16xf32>) -> tensor<1x2x4x4x16xf32> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 3, 3, 1>, strides = array<i64: 2, 2, 1>} : tensor<1x2x9x9x16xf32> -> tensor<1x2x4x4x16xf32>
  func.return %0 : tensor<1x2x4x4x16xf32>
}
