// convert-graph-to-te on @main: every graph op but graph.constant becomes a func.call of a
// new te kernel (marked te.kernel, named <op>_<N> in program order, inserted before @main,
// taking the op's operands and returning its results, with no schedule: a matmul's compute
// is marked te.templated, a layer_norm, whose kernel runs as one pass, te.fused); constants
// stay in @main, with their out-of-line weights, and reach kernels as arguments.
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te | filecheck %s

// CHECK:       builtin.module {
// CHECK-NEXT:    func.func @relu_0(%{{\w+}}: tensor<2x2xf32>) -> tensor<2x2xf32> attributes {te.kernel} {
// CHECK-NEXT:      te.compute
// CHECK:         func.func @matmul_1(%{{\w+}}: tensor<2x2xf32>, %{{\w+}}: tensor<2x2xf32>) -> tensor<2x2xf32> attributes {te.kernel} {
// CHECK-NEXT:      te.compute {{.*}} sum (%{{\w+}}) in [2] {te.templated} : tensor<2x2xf32> {
// CHECK:         func.func @layer_norm_2(%{{\w+}}: tensor<2x2xf32>, %{{\w+}}: tensor<2xf32>, %{{\w+}}: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x1xf32>) attributes {te.kernel, te.fused} {
// CHECK:           func.return %{{\w+}}, %{{\w+}}, %{{\w+}} : tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x1xf32>
// CHECK:         func.func @add_3(%{{\w+}}: tensor<2x2xf32>, %{{\w+}}: tensor<2x1xf32>) -> tensor<2x2xf32> attributes {te.kernel} {
// CHECK:           func.return
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @main(%[[X:\w+]]: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>) {
// CHECK-NEXT:      %[[W:\w+]] = graph.constant #graph.weights<w_0123456789ab> : tensor<2x2xf32>
// CHECK-NEXT:      %[[G:\w+]] = graph.constant #graph.splat<1.000000e+00 : f32> : tensor<2xf32>
// CHECK-NEXT:      %[[B:\w+]] = graph.constant dense<5.000000e-01> : tensor<2xf32>
// CHECK-NEXT:      %[[R:\w+]] = func.call @relu_0(%[[X]]) : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:      %[[M:\w+]] = func.call @matmul_1(%[[R]], %[[W]]) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:      %[[Y:\w+]], %[[MEAN:\w+]], %[[INV:\w+]] = func.call @layer_norm_2(%[[M]], %[[G]], %[[B]]) : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
// CHECK-NEXT:      %[[S:\w+]] = func.call @add_3(%[[Y]], %[[INV]]) : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:      func.return %[[S]], %[[MEAN]] : tensor<2x2xf32>, tensor<2x1xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK:       {-#
// CHECK-NEXT:    dialect_resources: {
// CHECK-NEXT:      graph: {
// CHECK-NEXT:        w_0123456789ab: "0x080000000000803f000000400000404000008040"
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  #-}
func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>) {
  %w = graph.constant #graph.weights<w_0123456789ab> : tensor<2x2xf32>
  %g = graph.constant #graph.splat<1.0 : f32> : tensor<2xf32>
  %b = graph.constant dense<0.5> : tensor<2xf32>
  %0 = graph.relu %x : tensor<2x2xf32>
  %1 = graph.matmul %0, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y, %mean, %inv = graph.layer_norm %1, %g, %b {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %2 = graph.add %y, %inv : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  func.return %2, %mean : tensor<2x2xf32>, tensor<2x1xf32>
}
{-#
  dialect_resources: {
    graph: {
      w_0123456789ab: "0x080000000000803f000000400000404000008040"
    }
  }
#-}

// -----

// Functions already marked te.kernel are left alone (a second run converts nothing new);
// an op whose result @main does not use still gets its kernel and call.
// CHECK:       {{^}}// {{-----}}
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:    func.func @exp_kernel(%[[A:\w+]]: tensor<4xf32>) -> tensor<4xf32> attributes {te.kernel} {
// CHECK-NEXT:      %[[E:\w+]] = te.compute (%[[I:\w+]]) in [4] : tensor<4xf32> {
// CHECK-NEXT:        %[[V:\w+]] = te.read %[[A]][%[[I]]] : tensor<4xf32>
// CHECK-NEXT:        %[[X:\w+]] = math.exp %[[V]] : f32
// CHECK-NEXT:        te.yield %[[X]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      func.return %[[E]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @neg_0(%{{\w+}}: tensor<4xf32>) -> tensor<4xf32> attributes {te.kernel} {
// CHECK:         func.func @sqrt_1(%{{\w+}}: tensor<4xf32>) -> tensor<4xf32> attributes {te.kernel} {
// CHECK:         func.func @main(%[[P:\w+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      %[[C:\w+]] = func.call @exp_kernel(%[[P]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      %[[N:\w+]] = func.call @neg_0(%[[C]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      %{{\w+}} = func.call @sqrt_1(%[[N]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      func.return %[[N]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @exp_kernel(%a: tensor<4xf32>) -> tensor<4xf32> attributes {te.kernel} {
  %e = te.compute (%i) in [4] : tensor<4xf32> {
    %v = te.read %a[%i] : tensor<4xf32>
    %x = math.exp %v : f32
    te.yield %x : f32
  }
  func.return %e : tensor<4xf32>
}
func.func @main(%p: tensor<4xf32>) -> tensor<4xf32> {
  %c = func.call @exp_kernel(%p) : (tensor<4xf32>) -> tensor<4xf32>
  %n = graph.neg %c : tensor<4xf32>
  %unused = graph.sqrt %n : tensor<4xf32>
  func.return %n : tensor<4xf32>
}

// -----

// The ops in the branches of a graph.if become calls inside them, numbered on in program
// order; the graph.if and its yields stay.
// CHECK-LABEL: func.func @choose(
// CHECK-NEXT:      %[[N:\w+]] = func.call @neg_0(%[[X:\w+]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      %[[R:\w+]] = graph.if %{{\w+}} : tensor<i1> -> (tensor<4xf32>) {
// CHECK-NEXT:        %[[E:\w+]] = func.call @exp_1(%[[N]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:        graph.yield %[[E]] : tensor<4xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        graph.yield %[[X]] : tensor<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[Y:\w+]] = func.call @relu_2(%[[R]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      func.return %[[Y]] : tensor<4xf32>
func.func @choose(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %n = graph.neg %x : tensor<4xf32>
  %r = graph.if %c : tensor<i1> -> (tensor<4xf32>) {
    %e = graph.exp %n : tensor<4xf32>
    graph.yield %e : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  %y = graph.relu %r : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// The reshapes, splits and slices of @main's own block that are views of their input stay
// (convert-te-to-loop makes them loop.views, lowering/views.py): a reshape; a split whose
// pieces are runs of rows (the dims before its axis are 1); a slice of whole rows. The rest
// become kernels: a split whose pieces interleave (axis 1 of 4 rows), one whose piece would
// start off a 64-byte boundary (3 floats in), and a reshape inside a graph.if branch: views
// are made in @main's own block only (a graph.loop's body copies its yields into the loop's
// state buffers, and a view of one of those would change under its readers).
// CHECK-LABEL: func.func @views(
// CHECK-NEXT:      %[[F:\w+]] = graph.reshape %[[X:\w+]] : tensor<4x32xf32> to tensor<128xf32>
// CHECK-NEXT:      %{{\w+}}, %{{\w+}} = graph.split %[[X]] {axis = 0 : i64, sizes = array<i64: 1, 3>}
// CHECK-NEXT:      %{{\w+}} = graph.slice %[[X]] {starts = array<i64: 2, 0>, ends = array<i64: 3, 32>, steps = array<i64: 1, 1>}
// CHECK-NEXT:      %{{\w+}}, %{{\w+}} = func.call @split_0(%[[X]])
// CHECK-NEXT:      %{{\w+}}, %{{\w+}} = func.call @split_1(%{{\w+}})
// CHECK-NEXT:      %{{\w+}} = graph.if
// CHECK-NEXT:        %{{\w+}} = func.call @reshape_2(%[[F]])
func.func @views(%c: tensor<i1>, %x: tensor<4x32xf32>, %v: tensor<1x8xf32>) -> (tensor<128xf32>, tensor<1x32xf32>, tensor<3x32xf32>, tensor<1x32xf32>, tensor<4x16xf32>, tensor<1x3xf32>, tensor<4x32xf32>) {
  %f = graph.reshape %x : tensor<4x32xf32> to tensor<128xf32>
  %p0, %p1 = graph.split %x {axis = 0 : i64, sizes = array<i64: 1, 3>} : tensor<4x32xf32> -> tensor<1x32xf32>, tensor<3x32xf32>
  %s = graph.slice %x {starts = array<i64: 2, 0>, ends = array<i64: 3, 32>, steps = array<i64: 1, 1>} : tensor<4x32xf32> -> tensor<1x32xf32>
  %q0, %q1 = graph.split %x {axis = 1 : i64, sizes = array<i64: 16, 16>} : tensor<4x32xf32> -> tensor<4x16xf32>, tensor<4x16xf32>
  %r0, %r1 = graph.split %v {axis = 1 : i64, sizes = array<i64: 3, 5>} : tensor<1x8xf32> -> tensor<1x3xf32>, tensor<1x5xf32>
  %i = graph.if %c : tensor<i1> -> (tensor<4x32xf32>) {
    %g = graph.reshape %f : tensor<128xf32> to tensor<4x32xf32>
    graph.yield %g : tensor<4x32xf32>
  } else {
    graph.yield %x : tensor<4x32xf32>
  }
  func.return %f, %p0, %p1, %s, %q0, %r0, %i : tensor<128xf32>, tensor<1x32xf32>, tensor<3x32xf32>, tensor<1x32xf32>, tensor<4x16xf32>, tensor<1x3xf32>, tensor<4x32xf32>
}
