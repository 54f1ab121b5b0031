func.func @main(%a: tensor<1048576x1073741824xf32>, %b: tensor<1073741824x1048576xf32>) -> tensor<1048576x1048576xf32> {
  %c = plumb.matmul %a, %b : (tensor<1048576x1073741824xf32>, tensor<1073741824x1048576xf32>) -> tensor<1048576x1048576xf32>
  return %c : tensor<1048576x1048576xf32>
}
