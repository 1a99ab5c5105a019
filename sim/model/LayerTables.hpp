#pragma once
// Per-layer gradient tables of the workload profiles' models, computed from their published layer shapes: each
// layer's parameters (gradient size) and forward FLOPs, whose share of the model's FLOPs is taken as its share of
// the backward pass (a layer's backward costs about twice its forward, like the whole model's).
#include "algorithms/GradientLayout.hpp"

namespace quorum {

// ImageNet ResNets (He et al., CVPR 2016, Table 1), 224x224 inputs, torchvision's layout (v1.5: the stride of a
// bottleneck block on its 3x3 convolution; a batch norm after every convolution; a 1x1 projection on the shortcut
// where the shape changes). blocks: per stage; bottleneck: ResNet-50 and deeper, else basic blocks (ResNet-18/34).
GradientLayout imagenet_resnet_layout(const int (&blocks)[4], bool bottleneck, int classes);

// The Transformer base model (Vaswani et al., NeurIPS 2017, Table 3: d_model 512, d_ff 2048, 6+6 layers) as
// tensor2tensor's transformer_base builds it: no biases in the attention projections, a layer norm before every
// sub-layer and after each stack, one embedding of the 33,708-token WMT En-De vocabulary shared by both inputs and
// the output projection. 61,362,176 parameters.
GradientLayout transformer_base_layout();

// The CIFAR-10 VGG-16 (13 3x3 convolutions with biases, 32x32 inputs, then FC 512-512-10): 14,982,474 parameters.
GradientLayout vgg16_cifar_layout();

}  // namespace quorum
