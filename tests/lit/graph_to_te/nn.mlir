// convert-graph-to-te on contractions, convolution, pooling, softmax and layer norm: the
// reductions are te.computes with reduction axes whose bodies are only the reduced term;
// whatever is applied to the reduced value (bias, division) is a following compute. No
// schedule is attached: the main compute of a matmul, conv or pool is marked te.templated,
// and a kernel with computes after its reduction (conv + bias, softmax, layer norm) is
// te.fused, the reduction they follow named "anchor". The SCHED prefix checks where
// te-default-schedule then runs those epilogue computes: #te.compute_at the anchor.
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te | filecheck %s
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te,te-default-schedule | filecheck %s --check-prefix=SCHED

// matmul: sum over k of a[i, k] * b[k, j].
// CHECK-LABEL: func.func @matmul_0(
// CHECK-SAME:    %[[A:\w+]]: tensor<2x3xf32>, %[[B:\w+]]: tensor<3x4xf32>) -> tensor<2x4xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 4] sum (%[[K:\w+]]) in [3] {te.templated} : tensor<2x4xf32> {
// CHECK-NEXT:      %[[VA:\w+]] = te.read %[[A]][%[[I]], %[[K]]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[VB:\w+]] = te.read %[[B]][%[[K]], %[[J]]] : tensor<3x4xf32>
// CHECK-NEXT:      %[[P:\w+]] = arith.mulf %[[VA]], %[[VB]] : f32
// CHECK-NEXT:      te.yield %[[P]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<2x4xf32>
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// conv with padding and bias: three computes. (1) The zero-padded input (6x6): a read at
// the index clamped into the input, selected where the unclamped index is inside it.
// (2) The window sum over (channel, kh, kw) reading the padded input at (o + k) and the
// weight. (3) The bias along the channel dim.
// CHECK-LABEL: func.func @conv_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x4x4xf32>, %[[W:\w+]]: tensor<3x2x3x3xf32>, %[[BIAS:\w+]]: tensor<3xf32>) -> tensor<1x3x4x4xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[PAD:\w+]] = te.compute (%[[N:\w+]], %[[C:\w+]], %[[H:\w+]], %[[V:\w+]]) in [1, 2, 6, 6] : tensor<1x2x6x6xf32> {
// CHECK-NEXT:      %[[ONE:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[HS:\w+]] = arith.subi %[[H]], %[[ONE]] : index
// CHECK:           %[[VS:\w+]] = arith.subi %[[V]], %{{\w+}} : index
// CHECK:           %[[HLO:\w+]] = arith.cmpi sge, %[[HS]], %{{\w+}} : index
// CHECK:           %[[HC0:\w+]] = arith.maxsi %[[HS]], %{{\w+}} : index
// CHECK-NEXT:      %[[FOUR:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[HHI:\w+]] = arith.cmpi slt, %[[HS]], %[[FOUR]] : index
// CHECK-NEXT:      %[[THREE:\w+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[HC:\w+]] = arith.minsi %[[HC0]], %[[THREE]] : index
// CHECK:           %[[VLO:\w+]] = arith.cmpi sge, %[[VS]], %{{\w+}} : index
// CHECK:           %[[VC0:\w+]] = arith.maxsi %[[VS]], %{{\w+}} : index
// CHECK:           %[[VHI:\w+]] = arith.cmpi slt, %[[VS]], %{{\w+}} : index
// CHECK:           %[[VC:\w+]] = arith.minsi %[[VC0]], %{{\w+}} : index
// CHECK-NEXT:      %[[IN0:\w+]] = arith.andi %[[HLO]], %[[HHI]] : i1
// CHECK-NEXT:      %[[IN1:\w+]] = arith.andi %[[IN0]], %[[VLO]] : i1
// CHECK-NEXT:      %[[IN:\w+]] = arith.andi %[[IN1]], %[[VHI]] : i1
// CHECK-NEXT:      %[[XV:\w+]] = te.read %[[X]][%[[N]], %[[C]], %[[HC]], %[[VC]]] : tensor<1x2x4x4xf32>
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[PV:\w+]] = arith.select %[[IN]], %[[XV]], %[[Z]] : f32
// CHECK-NEXT:      te.yield %[[PV]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ACC:\w+]] = te.compute "anchor" (%[[N:\w+]], %[[M:\w+]], %[[OH:\w+]], %[[OW:\w+]]) in [1, 3, 4, 4] sum (%[[RC:\w+]], %[[KH:\w+]], %[[KW:\w+]]) in [2, 3, 3] {te.templated} : tensor<1x3x4x4xf32> {
// CHECK-NEXT:      %[[PH:\w+]] = arith.addi %[[OH]], %[[KH]] : index
// CHECK-NEXT:      %[[PW:\w+]] = arith.addi %[[OW]], %[[KW]] : index
// CHECK-NEXT:      %[[XP:\w+]] = te.read %[[PAD]][%[[N]], %[[RC]], %[[PH]], %[[PW]]] : tensor<1x2x6x6xf32>
// CHECK-NEXT:      %[[WV:\w+]] = te.read %[[W]][%[[M]], %[[RC]], %[[KH]], %[[KW]]] : tensor<3x2x3x3xf32>
// CHECK-NEXT:      %[[T:\w+]] = arith.mulf %[[XP]], %[[WV]] : f32
// CHECK-NEXT:      te.yield %[[T]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[N:\w+]], %[[M:\w+]], %[[OH:\w+]], %[[OW:\w+]]) in [1, 3, 4, 4] : tensor<1x3x4x4xf32> {
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[ACC]][%[[N]], %[[M]], %[[OH]], %[[OW]]] : tensor<1x3x4x4xf32>
// CHECK-NEXT:      %[[BV:\w+]] = te.read %[[BIAS]][%[[M]]] : tensor<3xf32>
// CHECK-NEXT:      %[[SUM:\w+]] = arith.addf %[[S]], %[[BV]] : f32
// CHECK-NEXT:      te.yield %[[SUM]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x3x4x4xf32>
// SCHED-LABEL: func.func @conv_0(
// SCHED:         %[[ACC:\w+]] = te.compute "anchor" (%{{.*}}) in [1, 3, 4, 4] sum (%{{.*}}) in [2, 3, 3] {te.templated} : tensor<1x3x4x4xf32> {
// SCHED:         %[[Y:\w+]] = te.compute (%{{.*}}) in [1, 3, 4, 4] {schedule = [#te.compute_at<"anchor", "i2">]} : tensor<1x3x4x4xf32> {
// SCHED-NEXT:      te.read %[[ACC]]
func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  func.return %0 : tensor<1x3x4x4xf32>
}

// -----

// max_pool with stride 2 and padding 1: a max reduction over the 3x3 window at
// o * 2 + k - 1; windows reach only below 0 (the last tap is 2 * 1 + 2 - 1 = 3 < 4), so only
// that side is checked and clamped, and the padding reads -inf.
// CHECK-LABEL: func.func @max_pool_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[N:\w+]], %[[C:\w+]], %[[OH:\w+]], %[[OW:\w+]]) in [1, 1, 2, 2] max (%[[KH:\w+]], %[[KW:\w+]]) in [3, 3] {te.templated} : tensor<1x1x2x2xf32> {
// CHECK-NEXT:      %[[S0:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[H0:\w+]] = arith.muli %[[OH]], %[[S0]] : index
// CHECK-NEXT:      %[[H1:\w+]] = arith.addi %[[H0]], %[[KH]] : index
// CHECK-NEXT:      %[[M1:\w+]] = arith.constant -1 : index
// CHECK-NEXT:      %[[H:\w+]] = arith.addi %[[H1]], %[[M1]] : index
// CHECK-NEXT:      %[[S1:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[W0:\w+]] = arith.muli %[[OW]], %[[S1]] : index
// CHECK-NEXT:      %[[W1:\w+]] = arith.addi %[[W0]], %[[KW]] : index
// CHECK-NEXT:      %[[M2:\w+]] = arith.constant -1 : index
// CHECK-NEXT:      %[[W:\w+]] = arith.addi %[[W1]], %[[M2]] : index
// CHECK-NEXT:      %[[Z0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[HOK:\w+]] = arith.cmpi sge, %[[H]], %[[Z0]] : index
// CHECK-NEXT:      %[[Z1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[HC:\w+]] = arith.maxsi %[[H]], %[[Z1]] : index
// CHECK-NEXT:      %[[Z2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[WOK:\w+]] = arith.cmpi sge, %[[W]], %[[Z2]] : index
// CHECK-NEXT:      %[[Z3:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[WC:\w+]] = arith.maxsi %[[W]], %[[Z3]] : index
// CHECK-NEXT:      %[[OK:\w+]] = arith.andi %[[HOK]], %[[WOK]] : i1
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[N]], %[[C]], %[[HC]], %[[WC]]] : tensor<1x1x4x4xf32>
// CHECK-NEXT:      %[[NINF:\w+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      %[[SEL:\w+]] = arith.select %[[OK]], %[[V]], %[[NINF]] : f32
// CHECK-NEXT:      te.yield %[[SEL]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<1x1x2x2xf32>
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  func.return %0 : tensor<1x1x2x2xf32>
}

// -----

// softmax along axis 1, in three computes: m = max over the axis (kept as a dim of size 1),
// s = sum of exp(x - m), then exp(x - m) / s reading m and s at index 0 of the kept dim.
// CHECK-LABEL: func.func @softmax_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x8xf32>) -> tensor<2x8xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[MAX:\w+]] = te.compute (%[[I:\w+]], %[[K:\w+]]) in [2, 1] max (%[[R:\w+]]) in [8] : tensor<2x1xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[R]]] : tensor<2x8xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SUM:\w+]] = te.compute "anchor" (%[[I:\w+]], %[[K:\w+]]) in [2, 1] sum (%[[R:\w+]]) in [8] : tensor<2x1xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[R]]] : tensor<2x8xf32>
// CHECK-NEXT:      %[[M:\w+]] = te.read %[[MAX]][%[[I]], %[[K]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[D:\w+]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT:      %[[E:\w+]] = math.exp %[[D]] : f32
// CHECK-NEXT:      te.yield %[[E]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 8] : tensor<2x8xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[J]]] : tensor<2x8xf32>
// CHECK-NEXT:      %[[Z0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[M:\w+]] = te.read %[[MAX]][%[[I]], %[[Z0]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[D:\w+]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT:      %[[E:\w+]] = math.exp %[[D]] : f32
// CHECK-NEXT:      %[[Z1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[SUM]][%[[I]], %[[Z1]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[Q:\w+]] = arith.divf %[[E]], %[[S]] : f32
// CHECK-NEXT:      te.yield %[[Q]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x8xf32>
// SCHED-LABEL: func.func @softmax_0(
// SCHED-NEXT:    %[[MAX:\w+]] = te.compute (%{{.*}}) in [2, 1] max (%{{.*}}) in [8] : tensor<2x1xf32> {
// SCHED:         %[[SUM:\w+]] = te.compute "anchor" (%{{.*}}) in [2, 1] sum (%{{.*}}) in [8] : tensor<2x1xf32> {
// SCHED:         %[[Y:\w+]] = te.compute (%{{.*}}) in [2, 8] {schedule = [#te.compute_at<"anchor", "i0">, #te.vectorize<"i1">]} : tensor<2x8xf32> {
// SCHED:         func.return %[[Y]] : tensor<2x8xf32>
func.func @main(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  func.return %0 : tensor<2x8xf32>
}

// -----

// layer_norm over the last axis: sum, mean, sum of squared deviations, inv_std_dev, then
// the normalized output; the kernel returns (y, mean, inv_std_dev), the op's three results.
// CHECK-LABEL: func.func @layer_norm_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x8xf32>, %[[G:\w+]]: tensor<8xf32>, %[[B:\w+]]: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>) attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[TOTAL:\w+]] = te.compute (%[[I:\w+]], %[[K:\w+]]) in [2, 1] sum (%[[R:\w+]]) in [8] : tensor<2x1xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[R]]] : tensor<2x8xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MEAN:\w+]] = te.compute (%[[I:\w+]], %[[K:\w+]]) in [2, 1] : tensor<2x1xf32> {
// CHECK-NEXT:      %[[T:\w+]] = te.read %[[TOTAL]][%[[I]], %[[K]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[COUNT:\w+]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[Q:\w+]] = arith.divf %[[T]], %[[COUNT]] : f32
// CHECK-NEXT:      te.yield %[[Q]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SQ:\w+]] = te.compute "anchor" (%[[I:\w+]], %[[K:\w+]]) in [2, 1] sum (%[[R:\w+]]) in [8] : tensor<2x1xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[R]]] : tensor<2x8xf32>
// CHECK-NEXT:      %[[MU:\w+]] = te.read %[[MEAN]][%[[I]], %[[K]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[D:\w+]] = arith.subf %[[V]], %[[MU]] : f32
// CHECK-NEXT:      %[[D2:\w+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:      te.yield %[[D2]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[INV:\w+]] = te.compute (%[[I:\w+]], %[[K:\w+]]) in [2, 1] : tensor<2x1xf32> {
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[SQ]][%[[I]], %[[K]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[COUNT:\w+]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[VAR:\w+]] = arith.divf %[[S]], %[[COUNT]] : f32
// CHECK-NEXT:      %[[EPS:\w+]] = arith.constant 1.000000e-05 : f32
// CHECK-NEXT:      %[[VE:\w+]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK-NEXT:      %[[SD:\w+]] = math.sqrt %[[VE]] : f32
// CHECK-NEXT:      %[[ONE:\w+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[RS:\w+]] = arith.divf %[[ONE]], %[[SD]] : f32
// CHECK-NEXT:      te.yield %[[RS]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 8] : tensor<2x8xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[J]]] : tensor<2x8xf32>
// CHECK-NEXT:      %[[Z0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[MU:\w+]] = te.read %[[MEAN]][%[[I]], %[[Z0]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[D:\w+]] = arith.subf %[[V]], %[[MU]] : f32
// CHECK-NEXT:      %[[Z1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[IS:\w+]] = te.read %[[INV]][%[[I]], %[[Z1]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[N:\w+]] = arith.mulf %[[D]], %[[IS]] : f32
// CHECK-NEXT:      %[[GV:\w+]] = te.read %[[G]][%[[J]]] : tensor<8xf32>
// CHECK-NEXT:      %[[NG:\w+]] = arith.mulf %[[N]], %[[GV]] : f32
// CHECK-NEXT:      %[[BV:\w+]] = te.read %[[B]][%[[J]]] : tensor<8xf32>
// CHECK-NEXT:      %[[OUT:\w+]] = arith.addf %[[NG]], %[[BV]] : f32
// CHECK-NEXT:      te.yield %[[OUT]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]], %[[MEAN]], %[[INV]] : tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
// SCHED-LABEL: func.func @layer_norm_0(
// SCHED-NEXT:    %[[TOTAL:\w+]] = te.compute (%{{.*}}) in [2, 1] sum (%{{.*}}) in [8] : tensor<2x1xf32> {
// SCHED:         %[[MEAN:\w+]] = te.compute (%{{.*}}) in [2, 1] : tensor<2x1xf32> {
// SCHED:         %[[SQ:\w+]] = te.compute "anchor" (%{{.*}}) in [2, 1] sum (%{{.*}}) in [8] : tensor<2x1xf32> {
// SCHED:         %[[INV:\w+]] = te.compute (%{{.*}}) in [2, 1] {schedule = [#te.compute_at<"anchor", "i0">]} : tensor<2x1xf32> {
// SCHED-NEXT:      te.read %[[SQ]]
// SCHED:         %[[Y:\w+]] = te.compute (%{{.*}}) in [2, 8] {schedule = [#te.compute_at<"anchor", "i0">, #te.vectorize<"i1">]} : tensor<2x8xf32> {
// SCHED:         func.return %[[Y]], %[[MEAN]], %[[INV]]
func.func @main(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %y, %mean, %inv = graph.layer_norm %x, %g, %b {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  func.return %y, %mean, %inv : tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

// An integer matmul: each read extended to the i32 accumulator (zero-extended for ui8),
// then multiplied and summed in i32.
// CHECK-LABEL: func.func @matmul_0(
// CHECK-SAME:    %[[A:\w+]]: tensor<2x3xui8>, %[[B:\w+]]: tensor<3x4xi8>) -> tensor<2x4xi32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 4] sum (%[[K:\w+]]) in [3] {te.templated} : tensor<2x4xi32> {
// CHECK-NEXT:      %[[VA:\w+]] = te.read %[[A]][%[[I]], %[[K]]] : tensor<2x3xui8>
// CHECK-NEXT:      %[[WA:\w+]] = arith.extui %[[VA]] : ui8 to i32
// CHECK-NEXT:      %[[VB:\w+]] = te.read %[[B]][%[[K]], %[[J]]] : tensor<3x4xi8>
// CHECK-NEXT:      %[[WB:\w+]] = arith.extsi %[[VB]] : i8 to i32
// CHECK-NEXT:      %[[P:\w+]] = arith.muli %[[WA]], %[[WB]] : i32
// CHECK-NEXT:      te.yield %[[P]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<2x4xi32>
func.func @main(%a: tensor<2x3xui8>, %b: tensor<3x4xi8>) -> tensor<2x4xi32> {
  %0 = graph.matmul %a, %b : (tensor<2x3xui8>, tensor<3x4xi8>) -> tensor<2x4xi32>
  func.return %0 : tensor<2x4xi32>
}

// -----

// An integer max pool: taps past the input read the type's least value.
// CHECK-LABEL: func.func @max_pool_0(
// CHECK:         te.compute (%{{.*}}) in [1, 1, 2, 2] max (%{{.*}}) in [2, 2] {te.templated} : tensor<1x1x2x2xi8> {
// CHECK:           %[[IN:\w+]] = arith.andi %{{\w+}}, %{{\w+}} : i1
// CHECK-NEXT:      %[[XV:\w+]] = te.read %{{\w+}}[%{{.*}}] : tensor<1x1x3x3xi8>
// CHECK-NEXT:      %[[LOW:\w+]] = arith.constant -128 : i8
// CHECK-NEXT:      %[[V:\w+]] = arith.select %[[IN]], %[[XV]], %[[LOW]] : i8
// CHECK-NEXT:      te.yield %[[V]] : i8
func.func @main(%x: tensor<1x1x3x3xi8>) -> tensor<1x1x2x2xi8> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x1x3x3xi8> -> tensor<1x1x2x2xi8>
  func.return %0 : tensor<1x1x2x2xi8>
}

// -----

// max_unpool with windows apart (kernel <= stride): output p has one candidate, pooled
// position p // 2; its element where its index is p's flat index, else 0.
// CHECK-LABEL: func.func @max_unpool_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x1x4xf32>, %[[I:\w+]]: tensor<1x1x4xi64>) -> tensor<1x1x8xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[N:\w+]], %[[C:\w+]], %[[P:\w+]]) in [1, 1, 8] : tensor<1x1x8xf32> {
// CHECK-NEXT:      %[[TWO:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[Q:\w+]] = arith.floordivsi %[[P]], %[[TWO]] : index
// CHECK:           %[[FLAT:\w+]] = arith.addi %{{\w+}}, %[[P]] : index
// CHECK-NEXT:      %[[IV:\w+]] = te.read %[[I]][%[[N]], %[[C]], %[[Q]]] : tensor<1x1x4xi64>
// CHECK-NEXT:      %[[F64:\w+]] = arith.index_cast %[[FLAT]] : index to i64
// CHECK-NEXT:      %[[HIT:\w+]] = arith.cmpi eq, %[[IV]], %[[F64]] : i64
// CHECK-NEXT:      %[[XV:\w+]] = te.read %[[X]][%[[N]], %[[C]], %[[Q]]] : tensor<1x1x4xf32>
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[Y:\w+]] = arith.select %[[HIT]], %[[XV]], %[[Z]] : f32
// CHECK-NEXT:      te.yield %[[Y]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<1x1x8xf32>
func.func @main(%x: tensor<1x1x4xf32>, %i: tensor<1x1x4xi64>) -> tensor<1x1x8xf32> {
  %0 = graph.max_unpool %x, %i {kernel_shape = array<i64: 2>, strides = array<i64: 2>} : (tensor<1x1x4xf32>, tensor<1x1x4xi64>) -> tensor<1x1x8xf32>
  func.return %0 : tensor<1x1x8xf32>
}
