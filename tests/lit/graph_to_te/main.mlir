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
