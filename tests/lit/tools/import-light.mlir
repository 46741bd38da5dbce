// `minitvm import` writes what minitvm-opt reads: ResNet-50 from the onnx wheel, both forms.
// RUN: minitvm import %light/light_resnet50.onnx | minitvm-opt | filecheck %s
// RUN: minitvm import %light/light_resnet50.onnx --generic | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%{{.*}}: tensor<1x3x224x224xf32>) -> tensor<1x1000xf32> {
// CHECK:         %[[W:.*]] = graph.constant {{.*}} : tensor<64x3x7x7xf32>
// CHECK-NEXT:    %{{.*}} = graph.conv %{{.*}}, %[[W]] {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, {{.*}}} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
// CHECK:         graph.max_pool
// CHECK:         graph.avg_pool {{.*}} : tensor<1x2048x7x7xf32> -> tensor<1x2048x1x1xf32>
// CHECK:         graph.gemm
// CHECK:         %[[Y:.*]] = graph.softmax %{{.*}} {axis = 1 : i64} : tensor<1x1000xf32> -> tensor<1x1000xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x1000xf32>
