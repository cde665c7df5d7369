// harris_small (bench/pipelines) at a 41x47 input: its 39x45 and 37x43 maps have odd
// extents (37, 43 prime), so --connect pads its candidate tiles
// (tests/lit/connect/aligned-tiles.test).
func.func @harris(%I: tensor<3x41x47xf32>) -> tensor<37x43xf32> {
  %gray = te.compute (%y, %x) in [41, 47] : (tensor<3x41x47xf32>) -> tensor<41x47xf32> { 0.299 * %I[0, %y, %x] + 0.587 * %I[1, %y, %x] + 0.114 * %I[2, %y, %x] }
  %Iy = te.compute (%y, %x) in [39, 45] : (tensor<41x47xf32>) -> tensor<39x45xf32> { (%gray[%y + 2, %x] + 2.0 * %gray[%y + 2, %x + 1] + %gray[%y + 2, %x + 2] - %gray[%y, %x] - 2.0 * %gray[%y, %x + 1] - %gray[%y, %x + 2]) * 0.083333 }
  %Ix = te.compute (%y, %x) in [39, 45] : (tensor<41x47xf32>) -> tensor<39x45xf32> { (%gray[%y, %x + 2] + 2.0 * %gray[%y + 1, %x + 2] + %gray[%y + 2, %x + 2] - %gray[%y, %x] - 2.0 * %gray[%y + 1, %x] - %gray[%y + 2, %x]) * 0.083333 }
  %Ixx = te.compute (%y, %x) in [39, 45] : (tensor<39x45xf32>) -> tensor<39x45xf32> { %Ix[%y, %x] * %Ix[%y, %x] }
  %Iyy = te.compute (%y, %x) in [39, 45] : (tensor<39x45xf32>) -> tensor<39x45xf32> { %Iy[%y, %x] * %Iy[%y, %x] }
  %Ixy = te.compute (%y, %x) in [39, 45] : (tensor<39x45xf32>, tensor<39x45xf32>) -> tensor<39x45xf32> { %Ix[%y, %x] * %Iy[%y, %x] }
  %Sxx = te.compute (%y, %x) in [37, 43] : (tensor<39x45xf32>) -> tensor<37x43xf32> { %Ixx[%y, %x] + %Ixx[%y, %x + 1] + %Ixx[%y, %x + 2] + %Ixx[%y + 1, %x] + %Ixx[%y + 1, %x + 1] + %Ixx[%y + 1, %x + 2] + %Ixx[%y + 2, %x] + %Ixx[%y + 2, %x + 1] + %Ixx[%y + 2, %x + 2] }
  %Syy = te.compute (%y, %x) in [37, 43] : (tensor<39x45xf32>) -> tensor<37x43xf32> { %Iyy[%y, %x] + %Iyy[%y, %x + 1] + %Iyy[%y, %x + 2] + %Iyy[%y + 1, %x] + %Iyy[%y + 1, %x + 1] + %Iyy[%y + 1, %x + 2] + %Iyy[%y + 2, %x] + %Iyy[%y + 2, %x + 1] + %Iyy[%y + 2, %x + 2] }
  %Sxy = te.compute (%y, %x) in [37, 43] : (tensor<39x45xf32>) -> tensor<37x43xf32> { %Ixy[%y, %x] + %Ixy[%y, %x + 1] + %Ixy[%y, %x + 2] + %Ixy[%y + 1, %x] + %Ixy[%y + 1, %x + 1] + %Ixy[%y + 1, %x + 2] + %Ixy[%y + 2, %x] + %Ixy[%y + 2, %x + 1] + %Ixy[%y + 2, %x + 2] }
  %det = te.compute (%y, %x) in [37, 43] : (tensor<37x43xf32>, tensor<37x43xf32>, tensor<37x43xf32>) -> tensor<37x43xf32> { %Sxx[%y, %x] * %Syy[%y, %x] - %Sxy[%y, %x] * %Sxy[%y, %x] }
  %trace = te.compute (%y, %x) in [37, 43] : (tensor<37x43xf32>, tensor<37x43xf32>) -> tensor<37x43xf32> { %Sxx[%y, %x] + %Syy[%y, %x] }
  %harris = te.compute (%y, %x) in [37, 43] : (tensor<37x43xf32>, tensor<37x43xf32>) -> tensor<37x43xf32> { %det[%y, %x] - 0.04 * %trace[%y, %x] * %trace[%y, %x] }
  func.return %harris : tensor<37x43xf32>
}
