// The lane-wise ops loop-vectorize emits, in their custom form, printed back exactly:
// loop.vcmpf / loop.vcmpi (vector masks), loop.vselect, loop.vcast and loop.vreduce.
// Parse -> print, print -> parse -> print and generic form in -> custom form out must agree.
//
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @masks(
// CHECK-SAME:    %[[A:\w+]]: vector<16xf32>, %[[B:\w+]]: vector<16xf32>, %[[I:\w+]]: vector<8xi32>, %[[J:\w+]]: vector<8xi32>)
func.func @masks(%a: vector<16xf32>, %b: vector<16xf32>, %i: vector<8xi32>, %j: vector<8xi32>) -> (vector<16xf32>, vector<8xi32>) {
  // CHECK-NEXT: %[[LT:\w+]] = loop.vcmpf "olt", %[[A]], %[[B]] : vector<16xf32> -> vector<16xi1>
  // CHECK-NEXT: %[[MIN:\w+]] = loop.vselect %[[LT]], %[[A]], %[[B]] : vector<16xi1>, vector<16xf32>
  // CHECK-NEXT: %[[GE:\w+]] = loop.vcmpi "sge", %[[I]], %[[J]] : vector<8xi32> -> vector<8xi1>
  // CHECK-NEXT: %[[MAX:\w+]] = loop.vselect %[[GE]], %[[I]], %[[J]] : vector<8xi1>, vector<8xi32>
  // CHECK-NEXT: func.return %[[MIN]], %[[MAX]] : vector<16xf32>, vector<8xi32>
  %lt = loop.vcmpf "olt", %a, %b : vector<16xf32> -> vector<16xi1>
  %min = loop.vselect %lt, %a, %b : vector<16xi1>, vector<16xf32>
  %ge = loop.vcmpi "sge", %i, %j : vector<8xi32> -> vector<8xi1>
  %max = loop.vselect %ge, %i, %j : vector<8xi1>, vector<8xi32>
  func.return %min, %max : vector<16xf32>, vector<8xi32>
}

// Every cast kind xDSL's arith ops reject on vectors; the discardable attribute survives.
// CHECK-LABEL: func.func @casts(
// CHECK-SAME:    %[[I:\w+]]: vector<8xi32>, %[[F:\w+]]: vector<8xf32>, %[[B:\w+]]: vector<8xi8>)
func.func @casts(%i: vector<8xi32>, %f: vector<8xf32>, %b: vector<8xi8>) {
  // CHECK-NEXT: %{{\w+}} = loop.vcast "sitofp" %[[I]] : vector<8xi32> -> vector<8xf32>
  // CHECK-NEXT: %{{\w+}} = loop.vcast "uitofp" %[[I]] : vector<8xi32> -> vector<8xf64>
  // CHECK-NEXT: %{{\w+}} = loop.vcast "fptosi" %[[F]] : vector<8xf32> -> vector<8xi64>
  // CHECK-NEXT: %{{\w+}} = loop.vcast "fptoui" %[[F]] : vector<8xf32> -> vector<8xi8>
  // CHECK-NEXT: %{{\w+}} = loop.vcast "extsi" %[[B]] : vector<8xi8> -> vector<8xi32>
  // CHECK-NEXT: %{{\w+}} = loop.vcast "extui" %[[B]] {note} : vector<8xi8> -> vector<8xi32>
  // CHECK-NEXT: %{{\w+}} = loop.vcast "trunci" %[[I]] : vector<8xi32> -> vector<8xi8>
  // CHECK-NEXT: func.return
  %0 = loop.vcast "sitofp" %i : vector<8xi32> -> vector<8xf32>
  %1 = loop.vcast "uitofp" %i : vector<8xi32> -> vector<8xf64>
  %2 = loop.vcast "fptosi" %f : vector<8xf32> -> vector<8xi64>
  %3 = loop.vcast "fptoui" %f : vector<8xf32> -> vector<8xi8>
  %4 = loop.vcast "extsi" %b : vector<8xi8> -> vector<8xi32>
  %5 = loop.vcast "extui" %b {note} : vector<8xi8> -> vector<8xi32>
  %6 = loop.vcast "trunci" %i : vector<8xi32> -> vector<8xi8>
  func.return
}

// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:    %[[V:\w+]]: vector<16xf32>, %[[S:\w+]]: f32, %[[W:\w+]]: vector<4xi64>, %[[T:\w+]]: i64)
func.func @reductions(%v: vector<16xf32>, %s: f32, %w: vector<4xi64>, %t: i64) -> (f32, f32, i64) {
  // CHECK-NEXT: %[[SUM:\w+]] = loop.vreduce "addf" %[[S]], %[[V]] : vector<16xf32> -> f32
  // CHECK-NEXT: %[[MAX:\w+]] = loop.vreduce "maximumf" %[[S]], %[[V]] : vector<16xf32> -> f32
  // CHECK-NEXT: %[[SMAX:\w+]] = loop.vreduce "maxsi" %[[T]], %[[W]] : vector<4xi64> -> i64
  // CHECK-NEXT: func.return %[[SUM]], %[[MAX]], %[[SMAX]] : f32, f32, i64
  %sum = loop.vreduce "addf" %s, %v : vector<16xf32> -> f32
  %max = loop.vreduce "maximumf" %s, %v : vector<16xf32> -> f32
  %smax = loop.vreduce "maxsi" %t, %w : vector<4xi64> -> i64
  func.return %sum, %max, %smax : f32, f32, i64
}
