// RUN: minitvm-opt %s -p loop-vectorize-transpose | filecheck %s
//
// A transpose tile (a loop over s holding only a `vectorize` loop over d that copies one
// element, read contiguously along s and written contiguously along d) becomes D vector loads
// of S lanes, a register transpose out of loop.vshuffle, and S vector stores of D lanes.
// Anything else is left as it is (to loop-vectorize).

// 4 x 4: one vector load per d (row d of A, lanes s = 0..3), two rounds of four shuffles
// (round 1 interleaves lanes of rows i and i + 1, round 2 pairs of lanes of rows i and i + 2),
// one vector store per s (row s of B, lanes d = 0..3). Rows 1 and 2 come out of round 2
// swapped: the stores take them crosswise. Each access gets its own copy of the indices.
// CHECK-LABEL: func.func @square(
// CHECK-SAME:    %[[A:\w+]]: memref<4x4xf32>, %[[B:\w+]]: memref<4x4xf32>)
// CHECK-NEXT:    %[[S0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A0:\w+]] = loop.vload %[[A]][%[[D0]], %[[S0]]] : memref<4x4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[S1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[A1:\w+]] = loop.vload %[[A]][%[[D1]], %[[S1]]] : memref<4x4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[S2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[A2:\w+]] = loop.vload %[[A]][%[[D2]], %[[S2]]] : memref<4x4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[S3:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:    %[[A3:\w+]] = loop.vload %[[A]][%[[D3]], %[[S3]]] : memref<4x4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[E01:\w+]] = loop.vshuffle %[[A0]], %[[A1]] [0, 4, 2, 6] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[O01:\w+]] = loop.vshuffle %[[A0]], %[[A1]] [1, 5, 3, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[E23:\w+]] = loop.vshuffle %[[A2]], %[[A3]] [0, 4, 2, 6] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[O23:\w+]] = loop.vshuffle %[[A2]], %[[A3]] [1, 5, 3, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[R0:\w+]] = loop.vshuffle %[[E01]], %[[E23]] [0, 1, 4, 5] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[R2:\w+]] = loop.vshuffle %[[E01]], %[[E23]] [2, 3, 6, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[R1:\w+]] = loop.vshuffle %[[O01]], %[[O23]] [0, 1, 4, 5] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[R3:\w+]] = loop.vshuffle %[[O01]], %[[O23]] [2, 3, 6, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:    %[[T0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[Z0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[R0]], %[[B]][%[[T0]], %[[Z0]]] : vector<4xf32>, memref<4x4xf32>
// CHECK-NEXT:    %[[T1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[Z1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[R1]], %[[B]][%[[T1]], %[[Z1]]] : vector<4xf32>, memref<4x4xf32>
// CHECK-NEXT:    %[[T2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[Z2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[R2]], %[[B]][%[[T2]], %[[Z2]]] : vector<4xf32>, memref<4x4xf32>
// CHECK-NEXT:    %[[T3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:    %[[Z3:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[R3]], %[[B]][%[[T3]], %[[Z3]]] : vector<4xf32>, memref<4x4xf32>
// CHECK-NEXT:    func.return
func.func @square(%A: memref<4x4xf32>, %B: memref<4x4xf32>) {
  loop.for %s = 0 to 4 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %v = loop.load %A[%d, %s] : memref<4x4xf32> -> f32
      loop.store %v, %B[%s, %d] : f32, memref<4x4xf32>
    } {vectorize}
  }
  func.return
}

// 4 x 8 (S = 4 lanes loaded, D = 8 lanes stored), inside a parallel loop over tiles as the
// transpose template nests them: each access recomputes the tile's index math at its s and
// d; the 8 rows make two 4 x 4 squares (d = 0..3 and d = 4..7) whose rows u are joined into
// one vector of 8 lanes per s. The enclosing loop and its hint stay.
// CHECK-LABEL: func.func @join(
// CHECK-SAME:    %[[A:\w+]]: memref<8x16xf32>, %[[B:\w+]]: memref<16x8xf32>)
// CHECK-NEXT:    loop.for %[[SO:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:      %[[S0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[C0:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE0:\w+]] = arith.muli %[[SO]], %[[C0]] : index
// CHECK-NEXT:      %[[COL0:\w+]] = arith.addi %[[BASE0]], %[[S0]] : index
// CHECK-NEXT:      %[[A0:\w+]] = loop.vload %[[A]][%[[D0]], %[[COL0]]] : memref<8x16xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[S1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[C1:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE1:\w+]] = arith.muli %[[SO]], %[[C1]] : index
// CHECK-NEXT:      %[[COL1:\w+]] = arith.addi %[[BASE1]], %[[S1]] : index
// CHECK-NEXT:      %[[A1:\w+]] = loop.vload %[[A]][%[[D1]], %[[COL1]]] : memref<8x16xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[S2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[C2:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE2:\w+]] = arith.muli %[[SO]], %[[C2]] : index
// CHECK-NEXT:      %[[COL2:\w+]] = arith.addi %[[BASE2]], %[[S2]] : index
// CHECK-NEXT:      %[[A2:\w+]] = loop.vload %[[A]][%[[D2]], %[[COL2]]] : memref<8x16xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[S3:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[C3:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE3:\w+]] = arith.muli %[[SO]], %[[C3]] : index
// CHECK-NEXT:      %[[COL3:\w+]] = arith.addi %[[BASE3]], %[[S3]] : index
// CHECK-NEXT:      %[[A3:\w+]] = loop.vload %[[A]][%[[D3]], %[[COL3]]] : memref<8x16xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[S4:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D4:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[C4:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE4:\w+]] = arith.muli %[[SO]], %[[C4]] : index
// CHECK-NEXT:      %[[COL4:\w+]] = arith.addi %[[BASE4]], %[[S4]] : index
// CHECK-NEXT:      %[[A4:\w+]] = loop.vload %[[A]][%[[D4]], %[[COL4]]] : memref<8x16xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[S5:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D5:\w+]] = arith.constant 5 : index
// CHECK-NEXT:      %[[C5:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE5:\w+]] = arith.muli %[[SO]], %[[C5]] : index
// CHECK-NEXT:      %[[COL5:\w+]] = arith.addi %[[BASE5]], %[[S5]] : index
// CHECK-NEXT:      %[[A5:\w+]] = loop.vload %[[A]][%[[D5]], %[[COL5]]] : memref<8x16xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[S6:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D6:\w+]] = arith.constant 6 : index
// CHECK-NEXT:      %[[C6:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE6:\w+]] = arith.muli %[[SO]], %[[C6]] : index
// CHECK-NEXT:      %[[COL6:\w+]] = arith.addi %[[BASE6]], %[[S6]] : index
// CHECK-NEXT:      %[[A6:\w+]] = loop.vload %[[A]][%[[D6]], %[[COL6]]] : memref<8x16xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[S7:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[D7:\w+]] = arith.constant 7 : index
// CHECK-NEXT:      %[[C7:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE7:\w+]] = arith.muli %[[SO]], %[[C7]] : index
// CHECK-NEXT:      %[[COL7:\w+]] = arith.addi %[[BASE7]], %[[S7]] : index
// CHECK-NEXT:      %[[A7:\w+]] = loop.vload %[[A]][%[[D7]], %[[COL7]]] : memref<8x16xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[P0:\w+]] = loop.vshuffle %[[A0]], %[[A1]] [0, 4, 2, 6] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[P1:\w+]] = loop.vshuffle %[[A0]], %[[A1]] [1, 5, 3, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[P2:\w+]] = loop.vshuffle %[[A2]], %[[A3]] [0, 4, 2, 6] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[P3:\w+]] = loop.vshuffle %[[A2]], %[[A3]] [1, 5, 3, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[P4:\w+]] = loop.vshuffle %[[P0]], %[[P2]] [0, 1, 4, 5] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[P5:\w+]] = loop.vshuffle %[[P0]], %[[P2]] [2, 3, 6, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[P6:\w+]] = loop.vshuffle %[[P1]], %[[P3]] [0, 1, 4, 5] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[P7:\w+]] = loop.vshuffle %[[P1]], %[[P3]] [2, 3, 6, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[Q0:\w+]] = loop.vshuffle %[[A4]], %[[A5]] [0, 4, 2, 6] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[Q1:\w+]] = loop.vshuffle %[[A4]], %[[A5]] [1, 5, 3, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[Q2:\w+]] = loop.vshuffle %[[A6]], %[[A7]] [0, 4, 2, 6] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[Q3:\w+]] = loop.vshuffle %[[A6]], %[[A7]] [1, 5, 3, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[Q4:\w+]] = loop.vshuffle %[[Q0]], %[[Q2]] [0, 1, 4, 5] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[Q5:\w+]] = loop.vshuffle %[[Q0]], %[[Q2]] [2, 3, 6, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[Q6:\w+]] = loop.vshuffle %[[Q1]], %[[Q3]] [0, 1, 4, 5] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[Q7:\w+]] = loop.vshuffle %[[Q1]], %[[Q3]] [2, 3, 6, 7] : vector<4xf32> -> vector<4xf32>
// CHECK-NEXT:      %[[J0:\w+]] = loop.vshuffle %[[P4]], %[[Q4]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32> -> vector<8xf32>
// CHECK-NEXT:      %[[J1:\w+]] = loop.vshuffle %[[P6]], %[[Q6]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32> -> vector<8xf32>
// CHECK-NEXT:      %[[J2:\w+]] = loop.vshuffle %[[P5]], %[[Q5]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32> -> vector<8xf32>
// CHECK-NEXT:      %[[J3:\w+]] = loop.vshuffle %[[P7]], %[[Q7]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32> -> vector<8xf32>
// CHECK-NEXT:      %[[T0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[Z0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[K0:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[B0:\w+]] = arith.muli %[[SO]], %[[K0]] : index
// CHECK-NEXT:      %[[ROW0:\w+]] = arith.addi %[[B0]], %[[T0]] : index
// CHECK-NEXT:      loop.vstore %[[J0]], %[[B]][%[[ROW0]], %[[Z0]]] : vector<8xf32>, memref<16x8xf32>
// CHECK-NEXT:      %[[T1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[Z1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[K1:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[B1:\w+]] = arith.muli %[[SO]], %[[K1]] : index
// CHECK-NEXT:      %[[ROW1:\w+]] = arith.addi %[[B1]], %[[T1]] : index
// CHECK-NEXT:      loop.vstore %[[J1]], %[[B]][%[[ROW1]], %[[Z1]]] : vector<8xf32>, memref<16x8xf32>
// CHECK-NEXT:      %[[T2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[Z2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[K2:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[B2:\w+]] = arith.muli %[[SO]], %[[K2]] : index
// CHECK-NEXT:      %[[ROW2:\w+]] = arith.addi %[[B2]], %[[T2]] : index
// CHECK-NEXT:      loop.vstore %[[J2]], %[[B]][%[[ROW2]], %[[Z2]]] : vector<8xf32>, memref<16x8xf32>
// CHECK-NEXT:      %[[T3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[Z3:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[K3:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[B3:\w+]] = arith.muli %[[SO]], %[[K3]] : index
// CHECK-NEXT:      %[[ROW3:\w+]] = arith.addi %[[B3]], %[[T3]] : index
// CHECK-NEXT:      loop.vstore %[[J3]], %[[B]][%[[ROW3]], %[[Z3]]] : vector<8xf32>, memref<16x8xf32>
// CHECK-NEXT:    } {parallel}
// CHECK-NEXT:    func.return
func.func @join(%A: memref<8x16xf32>, %B: memref<16x8xf32>) {
  loop.for %so = 0 to 4 step 1 {
    loop.for %s = 0 to 4 step 1 {
      loop.for %d = 0 to 8 step 1 {
        %c4 = arith.constant 4 : index
        %base = arith.muli %so, %c4 : index
        %col = arith.addi %base, %s : index
        %v = loop.load %A[%d, %col] : memref<8x16xf32> -> f32
        loop.store %v, %B[%col, %d] : f32, memref<16x8xf32>
      } {vectorize}
    }
  } {parallel}
  func.return
}

// 8 x 4 (S = 8 lanes loaded, D = 4 lanes stored), i64: each loaded row is split into halves
// (s = 0..3, s = 4..7), each half set transposed as a 4 x 4 square; stores s = 0..7 take the
// first square's rows, then the second's.
// CHECK-LABEL: func.func @split(
// CHECK-SAME:    %[[A:\w+]]: memref<4x8xi64>, %[[B:\w+]]: memref<8x4xi64>)
// CHECK-NEXT:    %[[S0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A0:\w+]] = loop.vload %[[A]][%[[D0]], %[[S0]]] : memref<4x8xi64> -> vector<8xi64>
// CHECK-NEXT:    %[[S1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[A1:\w+]] = loop.vload %[[A]][%[[D1]], %[[S1]]] : memref<4x8xi64> -> vector<8xi64>
// CHECK-NEXT:    %[[S2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[A2:\w+]] = loop.vload %[[A]][%[[D2]], %[[S2]]] : memref<4x8xi64> -> vector<8xi64>
// CHECK-NEXT:    %[[S3:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:    %[[A3:\w+]] = loop.vload %[[A]][%[[D3]], %[[S3]]] : memref<4x8xi64> -> vector<8xi64>
// CHECK-NEXT:    %[[PH0:\w+]] = loop.vshuffle %[[A0]], %[[A0]] [0, 1, 2, 3] : vector<8xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[PH1:\w+]] = loop.vshuffle %[[A1]], %[[A1]] [0, 1, 2, 3] : vector<8xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[PH2:\w+]] = loop.vshuffle %[[A2]], %[[A2]] [0, 1, 2, 3] : vector<8xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[PH3:\w+]] = loop.vshuffle %[[A3]], %[[A3]] [0, 1, 2, 3] : vector<8xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[P0:\w+]] = loop.vshuffle %[[PH0]], %[[PH1]] [0, 4, 2, 6] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[P1:\w+]] = loop.vshuffle %[[PH0]], %[[PH1]] [1, 5, 3, 7] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[P2:\w+]] = loop.vshuffle %[[PH2]], %[[PH3]] [0, 4, 2, 6] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[P3:\w+]] = loop.vshuffle %[[PH2]], %[[PH3]] [1, 5, 3, 7] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[P4:\w+]] = loop.vshuffle %[[P0]], %[[P2]] [0, 1, 4, 5] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[P5:\w+]] = loop.vshuffle %[[P0]], %[[P2]] [2, 3, 6, 7] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[P6:\w+]] = loop.vshuffle %[[P1]], %[[P3]] [0, 1, 4, 5] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[P7:\w+]] = loop.vshuffle %[[P1]], %[[P3]] [2, 3, 6, 7] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[QH0:\w+]] = loop.vshuffle %[[A0]], %[[A0]] [4, 5, 6, 7] : vector<8xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[QH1:\w+]] = loop.vshuffle %[[A1]], %[[A1]] [4, 5, 6, 7] : vector<8xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[QH2:\w+]] = loop.vshuffle %[[A2]], %[[A2]] [4, 5, 6, 7] : vector<8xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[QH3:\w+]] = loop.vshuffle %[[A3]], %[[A3]] [4, 5, 6, 7] : vector<8xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[Q0:\w+]] = loop.vshuffle %[[QH0]], %[[QH1]] [0, 4, 2, 6] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[Q1:\w+]] = loop.vshuffle %[[QH0]], %[[QH1]] [1, 5, 3, 7] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[Q2:\w+]] = loop.vshuffle %[[QH2]], %[[QH3]] [0, 4, 2, 6] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[Q3:\w+]] = loop.vshuffle %[[QH2]], %[[QH3]] [1, 5, 3, 7] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[Q4:\w+]] = loop.vshuffle %[[Q0]], %[[Q2]] [0, 1, 4, 5] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[Q5:\w+]] = loop.vshuffle %[[Q0]], %[[Q2]] [2, 3, 6, 7] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[Q6:\w+]] = loop.vshuffle %[[Q1]], %[[Q3]] [0, 1, 4, 5] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[Q7:\w+]] = loop.vshuffle %[[Q1]], %[[Q3]] [2, 3, 6, 7] : vector<4xi64> -> vector<4xi64>
// CHECK-NEXT:    %[[T0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[Z0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[P4]], %[[B]][%[[T0]], %[[Z0]]] : vector<4xi64>, memref<8x4xi64>
// CHECK-NEXT:    %[[T1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[Z1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[P6]], %[[B]][%[[T1]], %[[Z1]]] : vector<4xi64>, memref<8x4xi64>
// CHECK-NEXT:    %[[T2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[Z2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[P5]], %[[B]][%[[T2]], %[[Z2]]] : vector<4xi64>, memref<8x4xi64>
// CHECK-NEXT:    %[[T3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:    %[[Z3:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[P7]], %[[B]][%[[T3]], %[[Z3]]] : vector<4xi64>, memref<8x4xi64>
// CHECK-NEXT:    %[[T4:\w+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[Z4:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[Q4]], %[[B]][%[[T4]], %[[Z4]]] : vector<4xi64>, memref<8x4xi64>
// CHECK-NEXT:    %[[T5:\w+]] = arith.constant 5 : index
// CHECK-NEXT:    %[[Z5:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[Q6]], %[[B]][%[[T5]], %[[Z5]]] : vector<4xi64>, memref<8x4xi64>
// CHECK-NEXT:    %[[T6:\w+]] = arith.constant 6 : index
// CHECK-NEXT:    %[[Z6:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[Q5]], %[[B]][%[[T6]], %[[Z6]]] : vector<4xi64>, memref<8x4xi64>
// CHECK-NEXT:    %[[T7:\w+]] = arith.constant 7 : index
// CHECK-NEXT:    %[[Z7:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.vstore %[[Q7]], %[[B]][%[[T7]], %[[Z7]]] : vector<4xi64>, memref<8x4xi64>
// CHECK-NEXT:    func.return
func.func @split(%A: memref<4x8xi64>, %B: memref<8x4xi64>) {
  loop.for %s = 0 to 8 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %v = loop.load %A[%d, %s] : memref<4x8xi64> -> i64
      loop.store %v, %B[%s, %d] : i64, memref<8x4xi64>
    } {vectorize}
  }
  func.return
}

// Left alone: the inner loop is not marked vectorize.
// CHECK-LABEL: func.func @no_vectorize(
// CHECK-NEXT:    loop.for %[[S:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.for %[[D:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:        %[[V:\w+]] = loop.load %{{\w+}}[%[[D]], %[[S]]] : memref<4x4xf32> -> f32
// CHECK-NEXT:        loop.store %[[V]], %{{\w+}}[%[[S]], %[[D]]] : f32, memref<4x4xf32>
// CHECK-NEXT:      } {unroll}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @no_vectorize(%A: memref<4x4xf32>, %B: memref<4x4xf32>) {
  loop.for %s = 0 to 4 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %v = loop.load %A[%d, %s] : memref<4x4xf32> -> f32
      loop.store %v, %B[%s, %d] : f32, memref<4x4xf32>
    } {unroll}
  }
  func.return
}

// Left alone: the loop over s is the parallel one (its iterations run on other threads).
// CHECK-LABEL: func.func @parallel_outer(
// CHECK-NEXT:    loop.for %[[S:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.for %[[D:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:        %[[V:\w+]] = loop.load %{{\w+}}[%[[D]], %[[S]]] : memref<4x4xf32> -> f32
// CHECK-NEXT:        loop.store %[[V]], %{{\w+}}[%[[S]], %[[D]]] : f32, memref<4x4xf32>
// CHECK-NEXT:      } {vectorize}
// CHECK-NEXT:    } {parallel}
// CHECK-NEXT:    func.return
func.func @parallel_outer(%A: memref<4x4xf32>, %B: memref<4x4xf32>) {
  loop.for %s = 0 to 4 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %v = loop.load %A[%d, %s] : memref<4x4xf32> -> f32
      loop.store %v, %B[%s, %d] : f32, memref<4x4xf32>
    } {vectorize}
  } {parallel}
  func.return
}

// Left alone: the load moves by 2 elements per s (no vector load reads it).
// CHECK-LABEL: func.func @strided_load(
// CHECK-NEXT:    loop.for %[[S:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.for %[[D:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:        %[[C2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:        %[[COL:\w+]] = arith.muli %[[S]], %[[C2]] : index
// CHECK-NEXT:        %[[V:\w+]] = loop.load %{{\w+}}[%[[D]], %[[COL]]] : memref<4x8xf32> -> f32
// CHECK-NEXT:        loop.store %[[V]], %{{\w+}}[%[[S]], %[[D]]] : f32, memref<4x4xf32>
// CHECK-NEXT:      } {vectorize}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @strided_load(%A: memref<4x8xf32>, %B: memref<4x4xf32>) {
  loop.for %s = 0 to 4 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %c2 = arith.constant 2 : index
      %col = arith.muli %s, %c2 : index
      %v = loop.load %A[%d, %col] : memref<4x8xf32> -> f32
      loop.store %v, %B[%s, %d] : f32, memref<4x4xf32>
    } {vectorize}
  }
  func.return
}

// Left alone: the store writes the buffer the load reads (an in-place transpose reads
// elements the tile already wrote; the register copy would read them all first).
// CHECK-LABEL: func.func @same_buffer(
// CHECK-SAME:    %[[A:\w+]]: memref<4x4xf32>)
// CHECK-NEXT:    loop.for %[[S:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.for %[[D:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:        %[[V:\w+]] = loop.load %[[A]][%[[D]], %[[S]]] : memref<4x4xf32> -> f32
// CHECK-NEXT:        loop.store %[[V]], %[[A]][%[[S]], %[[D]]] : f32, memref<4x4xf32>
// CHECK-NEXT:      } {vectorize}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @same_buffer(%A: memref<4x4xf32>) {
  loop.for %s = 0 to 4 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %v = loop.load %A[%d, %s] : memref<4x4xf32> -> f32
      loop.store %v, %A[%s, %d] : f32, memref<4x4xf32>
    } {vectorize}
  }
  func.return
}

// Left alone: 12 iterations of s is no vector length (4, 8, 16 or 32).
// CHECK-LABEL: func.func @trip_12(
// CHECK-NEXT:    loop.for %[[S:\w+]] = 0 to 12 step 1 {
// CHECK-NEXT:      loop.for %[[D:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:        %[[V:\w+]] = loop.load %{{\w+}}[%[[D]], %[[S]]] : memref<4x12xf32> -> f32
// CHECK-NEXT:        loop.store %[[V]], %{{\w+}}[%[[S]], %[[D]]] : f32, memref<12x4xf32>
// CHECK-NEXT:      } {vectorize}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @trip_12(%A: memref<4x12xf32>, %B: memref<12x4xf32>) {
  loop.for %s = 0 to 12 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %v = loop.load %A[%d, %s] : memref<4x12xf32> -> f32
      loop.store %v, %B[%s, %d] : f32, memref<12x4xf32>
    } {vectorize}
  }
  func.return
}

// Left alone: two stores of the loaded value.
// CHECK-LABEL: func.func @two_stores(
// CHECK-NEXT:    loop.for %[[S:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.for %[[D:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:        %[[V:\w+]] = loop.load %{{\w+}}[%[[D]], %[[S]]] : memref<4x4xf32> -> f32
// CHECK-NEXT:        loop.store %[[V]], %{{\w+}}[%[[S]], %[[D]]] : f32, memref<4x4xf32>
// CHECK-NEXT:        loop.store %[[V]], %{{\w+}}[%[[S]], %[[D]]] : f32, memref<4x4xf32>
// CHECK-NEXT:      } {vectorize}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @two_stores(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>) {
  loop.for %s = 0 to 4 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %v = loop.load %A[%d, %s] : memref<4x4xf32> -> f32
      loop.store %v, %B[%s, %d] : f32, memref<4x4xf32>
      loop.store %v, %C[%s, %d] : f32, memref<4x4xf32>
    } {vectorize}
  }
  func.return
}

// Left alone: the store is contiguous along s, not d (a copy, loop-vectorize's business).
// CHECK-LABEL: func.func @store_along_s(
// CHECK-NEXT:    loop.for %[[S:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.for %[[D:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:        %[[V:\w+]] = loop.load %{{\w+}}[%[[D]], %[[S]]] : memref<4x4xf32> -> f32
// CHECK-NEXT:        loop.store %[[V]], %{{\w+}}[%[[D]], %[[S]]] : f32, memref<4x4xf32>
// CHECK-NEXT:      } {vectorize}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @store_along_s(%A: memref<4x4xf32>, %B: memref<4x4xf32>) {
  loop.for %s = 0 to 4 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %v = loop.load %A[%d, %s] : memref<4x4xf32> -> f32
      loop.store %v, %B[%d, %s] : f32, memref<4x4xf32>
    } {vectorize}
  }
  func.return
}

// Left alone: the stored value is computed from the loaded one, not the loaded one itself.
// CHECK-LABEL: func.func @computed(
// CHECK-NEXT:    loop.for %[[S:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.for %[[D:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:        %[[V:\w+]] = loop.load %{{\w+}}[%[[D]], %[[S]]] : memref<4x4xf32> -> f32
// CHECK-NEXT:        %[[W:\w+]] = arith.addf %[[V]], %[[V]] : f32
// CHECK-NEXT:        loop.store %[[W]], %{{\w+}}[%[[S]], %[[D]]] : f32, memref<4x4xf32>
// CHECK-NEXT:      } {vectorize}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @computed(%A: memref<4x4xf32>, %B: memref<4x4xf32>) {
  loop.for %s = 0 to 4 step 1 {
    loop.for %d = 0 to 4 step 1 {
      %v = loop.load %A[%d, %s] : memref<4x4xf32> -> f32
      %w = arith.addf %v, %v : f32
      loop.store %w, %B[%s, %d] : f32, memref<4x4xf32>
    } {vectorize}
  }
  func.return
}
