// RUN: minitvm-opt %s -p loop-vectorize | filecheck %s
// RUN: minitvm-opt %s -p 'loop-vectorize{fma=false}' | filecheck %s --check-prefix=NOFMA
// RUN: minitvm-opt %s -p loop-vectorize,loop-unroll,loop-vectorize | filecheck %s --check-prefix=UNROLLED
//
// Loops marked vectorize become straight-line vector code, or stay scalar without the hint.

// The register-blocked GEMM's inner body: A[i, k] is the same for every lane (a scalar load,
// broadcast), B and C rows are vector accesses at lane 0's column, the product feeding the
// add becomes an fma, and C's read-modify-write is safe (each lane touches its own element).
// CHECK-LABEL: func.func @register_block(
// CHECK-SAME:    %[[A:\w+]]: memref<64x64xf32>, %[[B:\w+]]: memref<64x64xf32>, %[[C:\w+]]: memref<64x64xf32>, %[[I:\w+]]: index, %[[K:\w+]]: index, %[[J0:\w+]]: index)
// CHECK-NEXT:    %[[J:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[COL:\w+]] = arith.addi %[[J0]], %[[J]] : index
// CHECK-NEXT:    %[[AV:\w+]] = loop.load %[[A]][%[[I]], %[[K]]] : memref<64x64xf32> -> f32
// CHECK-NEXT:    %[[BV:\w+]] = loop.vload %[[B]][%[[K]], %[[COL]]] : memref<64x64xf32> -> vector<16xf32>
// CHECK-NEXT:    %[[AS:\w+]] = loop.broadcast %[[AV]] : f32 -> vector<16xf32>
// CHECK-NEXT:    %[[CV:\w+]] = loop.vload %[[C]][%[[I]], %[[COL]]] : memref<64x64xf32> -> vector<16xf32>
// CHECK-NEXT:    %[[S:\w+]] = math.fma %[[AS]], %[[BV]], %[[CV]] : vector<16xf32>
// CHECK-NEXT:    loop.vstore %[[S]], %[[C]][%[[I]], %[[COL]]] : vector<16xf32>, memref<64x64xf32>
// CHECK-NEXT:    func.return
// NOFMA-LABEL: func.func @register_block(
// NOFMA:         %[[AS:\w+]] = loop.broadcast %{{\w+}} : f32 -> vector<16xf32>
// NOFMA-NEXT:    %[[P:\w+]] = arith.mulf %[[AS]], %[[BV:\w+]] : vector<16xf32>
// NOFMA-NEXT:    %[[CV:\w+]] = loop.vload
// NOFMA-NEXT:    %{{\w+}} = arith.addf %[[CV]], %[[P]] : vector<16xf32>
func.func @register_block(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>, %i: index, %k: index, %j0: index) {
  loop.for %j = 0 to 16 step 1 {
    %col = arith.addi %j0, %j : index
    %a = loop.load %A[%i, %k] : memref<64x64xf32> -> f32
    %b = loop.load %B[%k, %col] : memref<64x64xf32> -> f32
    %p = arith.mulf %a, %b : f32
    %c = loop.load %C[%i, %col] : memref<64x64xf32> -> f32
    %s = arith.addf %c, %p : f32
    loop.store %s, %C[%i, %col] : f32, memref<64x64xf32>
  } {vectorize}
  func.return
}

// Uniform loads stay scalar and are broadcast once; a compare and select on vectors need
// vector masks: loop.vcmpf / loop.vselect. math ops take vectors as they are.
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:    %[[X:\w+]]: memref<4x8xf32>, %[[BIAS:\w+]]: memref<4xf32>, %[[Y:\w+]]: memref<4x8xf32>, %[[R:\w+]]: index)
// CHECK-NEXT:    %[[J:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[V:\w+]] = loop.vload %[[X]][%[[R]], %[[J]]] : memref<4x8xf32> -> vector<8xf32>
// CHECK-NEXT:    %[[B:\w+]] = loop.load %[[BIAS]][%[[R]]] : memref<4xf32> -> f32
// CHECK-NEXT:    %[[BS:\w+]] = loop.broadcast %[[B]] : f32 -> vector<8xf32>
// CHECK-NEXT:    %[[S:\w+]] = arith.addf %[[V]], %[[BS]] : vector<8xf32>
// CHECK-NEXT:    %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ZS:\w+]] = loop.broadcast %[[ZERO]] : f32 -> vector<8xf32>
// CHECK-NEXT:    %[[POS:\w+]] = loop.vcmpf "ogt", %[[S]], %[[ZS]] : vector<8xf32> -> vector<8xi1>
// CHECK-NEXT:    %[[E:\w+]] = math.exp %[[S]] : vector<8xf32>
// CHECK-NEXT:    %[[OUT:\w+]] = loop.vselect %[[POS]], %[[S]], %[[E]] : vector<8xi1>, vector<8xf32>
// CHECK-NEXT:    loop.vstore %[[OUT]], %[[Y]][%[[R]], %[[J]]] : vector<8xf32>, memref<4x8xf32>
// CHECK-NEXT:    func.return
func.func @elementwise(%x: memref<4x8xf32>, %bias: memref<4xf32>, %y: memref<4x8xf32>, %r: index) {
  loop.for %j = 0 to 8 step 1 {
    %v = loop.load %x[%r, %j] : memref<4x8xf32> -> f32
    %b = loop.load %bias[%r] : memref<4xf32> -> f32
    %s = arith.addf %v, %b : f32
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %s, %zero : f32
    %e = math.exp %s : f32
    %out = arith.select %pos, %s, %e : f32
    loop.store %out, %y[%r, %j] : f32, memref<4x8xf32>
  } {vectorize}
  func.return
}

// Reductions along the vector axis: the lanes are folded into the initial values.
// CHECK-LABEL: func.func @sum_and_max(
// CHECK-SAME:    %[[X:\w+]]: memref<16xf32>, %[[OUT:\w+]]: memref<2xf32>)
// CHECK-NEXT:    %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[NINF:\w+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    %[[J:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[V:\w+]] = loop.vload %[[X]][%[[J]]] : memref<16xf32> -> vector<16xf32>
// CHECK-NEXT:    %[[SUM:\w+]] = loop.vreduce "addf" %[[ZERO]], %[[V]] : vector<16xf32> -> f32
// CHECK-NEXT:    %[[MAX:\w+]] = loop.vreduce "maximumf" %[[NINF]], %[[V]] : vector<16xf32> -> f32
// CHECK:         loop.store %[[SUM]], %[[OUT]]
// CHECK-NEXT:    loop.store %[[MAX]], %[[OUT]]
func.func @sum_and_max(%x: memref<16xf32>, %out: memref<2xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sum, %max = loop.for %j = 0 to 16 step 1 iter_args(%s = %zero, %m = %ninf) -> (f32, f32) {
    %v = loop.load %x[%j] : memref<16xf32> -> f32
    %s1 = arith.addf %s, %v : f32
    %m1 = arith.maximumf %v, %m : f32
    loop.yield %s1, %m1 : f32, f32
  } {vectorize}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.store %sum, %out[%c0] : f32, memref<2xf32>
  loop.store %max, %out[%c1] : f32, memref<2xf32>
  func.return
}

// 64 iterations: strip-mined into 4 x 16 lanes with a vector accumulator starting at the
// identity of addf (-0.0), folded into the initial value after the loop.
// CHECK-LABEL: func.func @dot_strip_mined(
// CHECK-SAME:    %[[X:\w+]]: memref<64xf32>, %[[Y:\w+]]: memref<64xf32>, %[[OUT:\w+]]: memref<f32>)
// CHECK-NEXT:    %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ID:\w+]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:\w+]] = loop.broadcast %[[ID]] : f32 -> vector<16xf32>
// CHECK-NEXT:    %[[ACC:\w+]] = loop.for %[[O:\w+]] = 0 to 4 step 1 iter_args(%[[CUR:\w+]] = %[[INIT]]) -> (vector<16xf32>) {
// CHECK-NEXT:      %[[W:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[J:\w+]] = arith.muli %[[O]], %[[W]] : index
// CHECK-NEXT:      %[[A:\w+]] = loop.vload %[[X]][%[[J]]] : memref<64xf32> -> vector<16xf32>
// CHECK-NEXT:      %[[B:\w+]] = loop.vload %[[Y]][%[[J]]] : memref<64xf32> -> vector<16xf32>
// CHECK-NEXT:      %[[NEXT:\w+]] = math.fma %[[A]], %[[B]], %[[CUR]] : vector<16xf32>
// CHECK-NEXT:      loop.yield %[[NEXT]] : vector<16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[DOT:\w+]] = loop.vreduce "addf" %[[ZERO]], %[[ACC]] : vector<16xf32> -> f32
// CHECK-NEXT:    loop.store %[[DOT]], %[[OUT]][] : f32, memref<f32>
func.func @dot_strip_mined(%x: memref<64xf32>, %y: memref<64xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %dot = loop.for %j = 0 to 64 step 1 iter_args(%acc = %zero) -> (f32) {
    %a = loop.load %x[%j] : memref<64xf32> -> f32
    %b = loop.load %y[%j] : memref<64xf32> -> f32
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    loop.yield %s : f32
  } {vectorize}
  loop.store %dot, %out[] : f32, memref<f32>
  func.return
}

// 48 = 3 x 16 lanes, no reduction: a plain scalar loop over vector bodies. Casts that
// xDSL's arith verifies on scalars only become loop.vcast.
// CHECK-LABEL: func.func @cast_strip_mined(
// CHECK-SAME:    %[[X:\w+]]: memref<2x48xi32>, %[[Y:\w+]]: memref<2x48xf32>)
// CHECK-NEXT:    %[[ROW:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    loop.for %[[O:\w+]] = 0 to 3 step 1 {
// CHECK-NEXT:      %[[W:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[J:\w+]] = arith.muli %[[O]], %[[W]] : index
// CHECK-NEXT:      %[[V:\w+]] = loop.vload %[[X]][%[[ROW]], %[[J]]] : memref<2x48xi32> -> vector<16xi32>
// CHECK-NEXT:      %[[F:\w+]] = loop.vcast "sitofp" %[[V]] : vector<16xi32> -> vector<16xf32>
// CHECK-NEXT:      loop.vstore %[[F]], %[[Y]][%[[ROW]], %[[J]]] : vector<16xf32>, memref<2x48xf32>
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    func.return
func.func @cast_strip_mined(%x: memref<2x48xi32>, %y: memref<2x48xf32>) {
  %c1 = arith.constant 1 : index
  loop.for %j = 0 to 48 step 1 {
    %v = loop.load %x[%c1, %j] : memref<2x48xi32> -> i32
    %f = arith.sitofp %v : i32 to f32
    loop.store %f, %y[%c1, %j] : f32, memref<2x48xf32>
  } {vectorize}
  func.return
}

// Negative: a varying index in a non-last dimension (a gather): the loop stays scalar and
// loses its hint.
// CHECK-LABEL: func.func @gather(
// CHECK-NEXT:    loop.for %[[J:\w+]] = 0 to 8 step 1 {
// CHECK-NEXT:      %{{\w+}} = loop.load %{{\w+}}[%[[J]], %[[J]]] : memref<8x8xf32> -> f32
// CHECK-NEXT:      loop.store
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    func.return
func.func @gather(%x: memref<8x8xf32>, %y: memref<8xf32>) {
  loop.for %j = 0 to 8 step 1 {
    %v = loop.load %x[%j, %j] : memref<8x8xf32> -> f32
    loop.store %v, %y[%j] : f32, memref<8xf32>
  } {vectorize}
  func.return
}

// Negative: a loop.if in the body (the guard of a split that does not divide).
// CHECK-LABEL: func.func @guarded(
// CHECK-NEXT:    loop.for %[[J:\w+]] = 0 to 8 step 1 {
// CHECK-NEXT:      %[[IN:\w+]] = arith.cmpi slt, %[[J]], %{{\w+}} : index
// CHECK-NEXT:      loop.if %[[IN]] {
// CHECK-NEXT:        loop.load
// CHECK-NEXT:        loop.store
// CHECK-NEXT:      }
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    func.return
func.func @guarded(%x: memref<8xf32>, %y: memref<8xf32>, %n: index) {
  loop.for %j = 0 to 8 step 1 {
    %in = arith.cmpi slt, %j, %n : index
    loop.if %in {
      %v = loop.load %x[%j] : memref<8xf32> -> f32
      loop.store %v, %y[%j] : f32, memref<8xf32>
    }
  } {vectorize}
  func.return
}

// Negative: every lane stores to the same address.
// CHECK-LABEL: func.func @uniform_store(
// CHECK-NEXT:    loop.for %{{\w+}} = 0 to 8 step 1 {
// CHECK-NEXT:      loop.load
// CHECK-NEXT:      loop.store
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    func.return
func.func @uniform_store(%x: memref<8xf32>, %y: memref<f32>) {
  loop.for %j = 0 to 8 step 1 {
    %v = loop.load %x[%j] : memref<8xf32> -> f32
    loop.store %v, %y[] : f32, memref<f32>
  } {vectorize}
  func.return
}

// Negative: lane j + 1 reads what lane j wrote (accesses to a stored buffer must match).
// CHECK-LABEL: func.func @recurrence(
// CHECK-NEXT:    arith.constant 1 : index
// CHECK-NEXT:    loop.for %{{\w+}} = 0 to 16 step 1 {
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      loop.load
// CHECK-NEXT:      loop.store
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    func.return
func.func @recurrence(%x: memref<17xf32>) {
  %one = arith.constant 1 : index
  loop.for %j = 0 to 16 step 1 {
    %next = arith.addi %j, %one : index
    %v = loop.load %x[%j] : memref<17xf32> -> f32
    loop.store %v, %x[%next] : f32, memref<17xf32>
  } {vectorize}
  func.return
}

// 12 iterations: one 8-lane body, then one of 4 lanes.
// CHECK-LABEL: func.func @odd_trip(
// CHECK-SAME:    %[[X:\w+]]: memref<12xf32>, %[[Y:\w+]]: memref<12xf32>)
// CHECK-NEXT:    %[[J0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[V0:\w+]] = loop.vload %[[X]][%[[J0]]] : memref<12xf32> -> vector<8xf32>
// CHECK-NEXT:    loop.vstore %[[V0]], %[[Y]][%[[J0]]] : vector<8xf32>, memref<12xf32>
// CHECK-NEXT:    %[[J8:\w+]] = arith.constant 8 : index
// CHECK-NEXT:    %[[V8:\w+]] = loop.vload %[[X]][%[[J8]]] : memref<12xf32> -> vector<4xf32>
// CHECK-NEXT:    loop.vstore %[[V8]], %[[Y]][%[[J8]]] : vector<4xf32>, memref<12xf32>
// CHECK-NEXT:    func.return
func.func @odd_trip(%x: memref<12xf32>, %y: memref<12xf32>) {
  loop.for %j = 0 to 12 step 1 {
    %v = loop.load %x[%j] : memref<12xf32> -> f32
    loop.store %v, %y[%j] : f32, memref<12xf32>
  } {vectorize}
  func.return
}

// A sum over 37 = 2 x 16 + 4 + 1: a strip-mined loop, folded into the init; a 4-lane body
// folded into that; the last element added as in the scalar loop.
// CHECK-LABEL: func.func @tail_sum(
// CHECK-SAME:    %[[X:\w+]]: memref<37xf32>, %[[OUT:\w+]]: memref<f32>)
// CHECK-NEXT:    %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ID:\w+]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:\w+]] = loop.broadcast %[[ID]] : f32 -> vector<16xf32>
// CHECK-NEXT:    %[[ACC:\w+]] = loop.for %{{\w+}} = 0 to 2 step 1 iter_args(%[[A:\w+]] = %[[INIT]]) -> (vector<16xf32>) {
// CHECK:           %[[V:\w+]] = loop.vload %[[X]][%{{\w+}}] : memref<37xf32> -> vector<16xf32>
// CHECK-NEXT:      %[[S:\w+]] = arith.addf %[[A]], %[[V]] : vector<16xf32>
// CHECK-NEXT:      loop.yield %[[S]] : vector<16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R16:\w+]] = loop.vreduce "addf" %[[ZERO]], %[[ACC]] : vector<16xf32> -> f32
// CHECK-NEXT:    %[[J32:\w+]] = arith.constant 32 : index
// CHECK-NEXT:    %[[V4:\w+]] = loop.vload %[[X]][%[[J32]]] : memref<37xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[R4:\w+]] = loop.vreduce "addf" %[[R16]], %[[V4]] : vector<4xf32> -> f32
// CHECK-NEXT:    %[[J36:\w+]] = arith.constant 36 : index
// CHECK-NEXT:    %[[V1:\w+]] = loop.load %[[X]][%[[J36]]] : memref<37xf32> -> f32
// CHECK-NEXT:    %[[R1:\w+]] = arith.addf %[[R4]], %[[V1]] : f32
// CHECK-NEXT:    loop.store %[[R1]], %[[OUT]][] : f32, memref<f32>
func.func @tail_sum(%x: memref<37xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %r = loop.for %j = 0 to 37 step 1 iter_args(%acc = %zero) -> (f32) {
    %v = loop.load %x[%j] : memref<37xf32> -> f32
    %s = arith.addf %acc, %v : f32
    loop.yield %s : f32
  } {vectorize}
  loop.store %r, %out[] : f32, memref<f32>
  func.return
}

// Negative: 3 iterations are fewer than the smallest vector.
// CHECK-LABEL: func.func @short_trip(
// CHECK-NEXT:    loop.for %{{\w+}} = 0 to 3 step 1 {
func.func @short_trip(%x: memref<3xf32>, %y: memref<3xf32>) {
  loop.for %j = 0 to 3 step 1 {
    %v = loop.load %x[%j] : memref<3xf32> -> f32
    loop.store %v, %y[%j] : f32, memref<3xf32>
  } {vectorize}
  func.return
}

// A loop over the 49 pixels of 7x7 rows (h = p / 7, w = p % 7, a fused pair of loops): the
// row plus a uniform offset and the column address consecutive elements, so the accesses
// are vectors at lane 0's (h, w), across row ends.
// CHECK-LABEL: func.func @fused_rows(
// CHECK-SAME:    %[[X:\w+]]: memref<3x7x7xf32>, %[[Y:\w+]]: memref<3x7x7xf32>, %[[C:\w+]]: index, %[[U:\w+]]: index)
// CHECK-NEXT:    loop.for %[[PO:\w+]] = 0 to 3 step 1 {
// CHECK-NEXT:      %[[SIXTEEN:\w+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[P:\w+]] = arith.muli %[[PO]], %[[SIXTEEN]] : index
// CHECK-NEXT:      %[[W:\w+]] = arith.constant 7 : index
// CHECK-NEXT:      %[[H:\w+]] = arith.divui %[[P]], %[[W]] : index
// CHECK-NEXT:      %[[COL:\w+]] = arith.remui %[[P]], %[[W]] : index
// CHECK-NEXT:      %[[HU:\w+]] = arith.addi %[[H]], %[[U]] : index
// CHECK-NEXT:      %[[V:\w+]] = loop.vload %[[X]][%[[C]], %[[HU]], %[[COL]]] : memref<3x7x7xf32> -> vector<16xf32>
// CHECK-NEXT:      %[[A:\w+]] = loop.vload %[[Y]][%[[C]], %[[H]], %[[COL]]] : memref<3x7x7xf32> -> vector<16xf32>
// CHECK-NEXT:      %[[S:\w+]] = arith.addf %[[A]], %[[V]] : vector<16xf32>
// CHECK-NEXT:      loop.vstore %[[S]], %[[Y]][%[[C]], %[[H]], %[[COL]]] : vector<16xf32>, memref<3x7x7xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[P48:\w+]] = arith.constant 48 : index
// CHECK:         loop.load %[[X]]
// CHECK:         loop.store
// CHECK-NEXT:    func.return
func.func @fused_rows(%x: memref<3x7x7xf32>, %y: memref<3x7x7xf32>, %c: index, %u: index) {
  loop.for %p = 0 to 49 step 1 {
    %w = arith.constant 7 : index
    %h = arith.divui %p, %w : index
    %col = arith.remui %p, %w : index
    %hu = arith.addi %h, %u : index
    %v = loop.load %x[%c, %hu, %col] : memref<3x7x7xf32> -> f32
    %a = loop.load %y[%c, %h, %col] : memref<3x7x7xf32> -> f32
    %s = arith.addf %a, %v : f32
    loop.store %s, %y[%c, %h, %col] : f32, memref<3x7x7xf32>
  } {vectorize}
  func.return
}

// Negative: the split index walks dims that are not the last two (a gather), and one that
// is used as data.
// CHECK-LABEL: func.func @fused_not_last(
// CHECK-NEXT:    loop.for %{{\w+}} = 0 to 49 step 1 {
// CHECK:         }{{$}}
// CHECK-NEXT:    loop.for %{{\w+}} = 0 to 16 step 1 {
// CHECK:         }{{$}}
// CHECK-NEXT:    func.return
func.func @fused_not_last(%x: memref<7x7x3xf32>, %y: memref<49xf32>, %z: memref<16xi64>) {
  loop.for %p = 0 to 49 step 1 {
    %w = arith.constant 7 : index
    %h = arith.divui %p, %w : index
    %col = arith.remui %p, %w : index
    %zero = arith.constant 0 : index
    %v = loop.load %x[%h, %col, %zero] : memref<7x7x3xf32> -> f32
    loop.store %v, %y[%p] : f32, memref<49xf32>
  } {vectorize}
  loop.for %p = 0 to 16 step 1 {
    %four = arith.constant 4 : index
    %q = arith.divui %p, %four : index
    %n = arith.index_cast %q : index to i64
    loop.store %n, %z[%p] : i64, memref<16xi64>
  } {vectorize}
  func.return
}

// Negative: the carried value is also stored (a prefix sum), not just reduced.
// CHECK-LABEL: func.func @scan(
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    %{{\w+}} = loop.for %{{\w+}} = 0 to 8 step 1 iter_args(
// CHECK-NEXT:      loop.load
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      loop.store
// CHECK-NEXT:      loop.yield
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    func.return
func.func @scan(%x: memref<8xf32>, %y: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %r = loop.for %j = 0 to 8 step 1 iter_args(%acc = %zero) -> (f32) {
    %v = loop.load %x[%j] : memref<8xf32> -> f32
    %s = arith.addf %acc, %v : f32
    loop.store %s, %y[%j] : f32, memref<8xf32>
    loop.yield %s : f32
  } {vectorize}
  func.return
}

// A loop to a run-time bound (a symbolic size): a loop over (n - lower) / 16 vector bodies
// carrying a vector accumulator, folded once, then a scalar loop over the 0-15 iterations
// left, carrying the folded sum; the loop's result is the scalar loop's.
// CHECK-LABEL: func.func @run_time_trip_count(
// CHECK-SAME:    %[[X:\w+]]: memref<?xf32, #graph.dims<"n">>, %[[Y:\w+]]: memref<?xf32, #graph.dims<"n">>, %[[OUT:\w+]]: memref<1xf32>, %[[N:\w+]]: index)
// CHECK:         %[[LO:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[ZERO:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[W:\w+]] = arith.constant 16 : index
// CHECK-NEXT:    %[[D:\w+]] = arith.subi %[[N]], %[[LO]] : index
// CHECK-NEXT:    %[[COUNT:\w+]] = arith.maxsi %[[D]], %[[ZERO]] : index
// CHECK-NEXT:    %[[STRIPS:\w+]] = arith.divui %[[COUNT]], %[[W]] : index
// CHECK:         %[[ACC:\w+]] = loop.for %{{\w+}} = 0 to %[[STRIPS]] (at most 31) step 1 iter_args(%{{\w+}} = %{{\w+}}) -> (vector<16xf32>) {
// CHECK:           math.exp %{{\w+}} : vector<16xf32>
// CHECK:           loop.vstore
// CHECK:         }
// CHECK-NEXT:    %[[FOLD:\w+]] = loop.vreduce "addf" %{{\w+}}, %[[ACC]] : vector<16xf32> -> f32
// CHECK-NEXT:    %[[DONE:\w+]] = arith.muli %[[STRIPS]], %[[W]] : index
// CHECK-NEXT:    %[[REST:\w+]] = arith.subi %[[COUNT]], %[[DONE]] : index
// CHECK-NEXT:    %[[FROM:\w+]] = arith.addi %[[DONE]], %[[LO]] : index
// CHECK-NEXT:    %[[SUM:\w+]] = loop.for %[[T:\w+]] = 0 to %[[REST]] (at most 15) step 1 iter_args(%{{\w+}} = %[[FOLD]]) -> (f32) {
// CHECK-NEXT:      %{{\w+}} = arith.addi %[[FROM]], %[[T]] : index
// CHECK:           math.exp %{{\w+}} : f32
// CHECK:         }
// CHECK:         loop.store %[[SUM]], %[[OUT]]
func.func @run_time_trip_count(%x: memref<?xf32, #graph.dims<"n">>, %y: memref<?xf32, #graph.dims<"n">>, %out: memref<1xf32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  %s = loop.for %i = 2 to %n (at most 512) step 1 iter_args(%acc = %zero) -> (f32) {
    %v = loop.load %x[%i] : memref<?xf32, #graph.dims<"n">> -> f32
    %e = math.exp %v : f32
    loop.store %e, %y[%i] : f32, memref<?xf32, #graph.dims<"n">>
    %t = arith.addf %acc, %e : f32
    loop.yield %t : f32
  } {vectorize}
  %c0 = arith.constant 0 : index
  loop.store %s, %out[%c0] : f32, memref<1xf32>
  func.return
}

// At most 15 iterations at run time: no whole vector fits, the loop stays scalar.
// CHECK-LABEL: func.func @run_time_trip_count_below_a_vector(
// CHECK-NEXT:    loop.for %{{\w+}} = 0 to %{{\w+}} (at most 15) step 1 {
// CHECK-NEXT:      loop.load
func.func @run_time_trip_count_below_a_vector(%x: memref<?xf32, #graph.dims<"n">>, %n: index) {
  loop.for %i = 0 to %n (at most 15) step 1 {
    %v = loop.load %x[%i] : memref<?xf32, #graph.dims<"n">> -> f32
    %e = math.exp %v : f32
    loop.store %e, %x[%i] : f32, memref<?xf32, #graph.dims<"n">>
  } {vectorize}
  func.return
}

// A vector loop around a loop still to unroll waits for loop-unroll, hint and all (the
// pipeline runs loop-vectorize before and after it); once unrolled, it is vectorized.
// CHECK-LABEL: func.func @waits_for_unroll(
// CHECK-NEXT:    loop.for %{{\w+}} = 0 to 16 step 1 {
// CHECK:           loop.for %{{\w+}} = 0 to 2 step 1 iter_args
// CHECK:           } {unroll}
// CHECK:         } {vectorize}
// CHECK-NEXT:    func.return
// UNROLLED-LABEL: func.func @waits_for_unroll(
// UNROLLED-NOT:    loop.for
// UNROLLED-COUNT-2: loop.vload
// UNROLLED:        loop.vstore
// UNROLLED-NEXT:   func.return
func.func @waits_for_unroll(%x: memref<2x16xf32>, %y: memref<16xf32>) {
  loop.for %j = 0 to 16 step 1 {
    %zero = arith.constant 0.0 : f32
    %s = loop.for %i = 0 to 2 step 1 iter_args(%acc = %zero) -> (f32) {
      %v = loop.load %x[%i, %j] : memref<2x16xf32> -> f32
      %t = arith.addf %acc, %v : f32
      loop.yield %t : f32
    } {unroll}
    loop.store %s, %y[%j] : f32, memref<16xf32>
  } {vectorize}
  func.return
}
