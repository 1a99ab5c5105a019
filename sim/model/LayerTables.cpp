#include "sim/model/LayerTables.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace quorum {

namespace {

struct ForwardLayer {
  std::string name;
  std::int64_t parameters;
  double flops;  // forward, per sample
};

// Reverses the forward order (the backward pass produces the last layer's gradient first) and turns FLOPs into
// shares of the backward pass.
GradientLayout to_layout(std::vector<ForwardLayer> forward) {
  double total = 0;
  for (const auto& l : forward) total += l.flops;
  GradientLayout layout;
  std::reverse(forward.begin(), forward.end());
  for (auto& l : forward) layout.layers.push_back({std::move(l.name), l.parameters, l.flops / total});
  return layout;
}

// A KxK convolution without bias and its batch norm (scale and shift: 2 per channel). FLOPs: 2 K^2 Cin Cout Hout
// Wout per sample (one multiply and one add per weight and output position); the batch norm's are negligible.
ForwardLayer conv_bn(std::string name, int k, int cin, int cout, int out_hw) {
  const auto weights = static_cast<std::int64_t>(k) * k * cin * cout;
  return {std::move(name), weights + 2 * cout, 2.0 * static_cast<double>(weights) * out_hw * out_hw};
}

}  // namespace

GradientLayout imagenet_resnet_layout(const int (&blocks)[4], bool bottleneck, int classes) {
  std::vector<ForwardLayer> f;
  f.push_back(conv_bn("conv1", 7, 3, 64, 112));  // stride 2: 224 -> 112, then a 3x3 max pool to 56
  int in = 64, hw = 56;
  for (int stage = 0; stage < 4; ++stage) {
    const int planes = 64 << stage;
    const int out = bottleneck ? 4 * planes : planes;
    for (int b = 0; b < blocks[stage]; ++b) {
      const int stride = (stage > 0 && b == 0) ? 2 : 1;
      const int out_hw = hw / stride;
      const std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(b) + ".";
      if (bottleneck) {
        f.push_back(conv_bn(p + "conv1", 1, in, planes, hw));
        f.push_back(conv_bn(p + "conv2", 3, planes, planes, out_hw));
        f.push_back(conv_bn(p + "conv3", 1, planes, out, out_hw));
      } else {
        f.push_back(conv_bn(p + "conv1", 3, in, planes, out_hw));
        f.push_back(conv_bn(p + "conv2", 3, planes, planes, out_hw));
      }
      if (stride != 1 || in != out) f.push_back(conv_bn(p + "downsample", 1, in, out, out_hw));
      in = out;
      hw = out_hw;
    }
  }
  const auto fc = static_cast<std::int64_t>(in) * classes;
  f.push_back({"fc", fc + classes, 2.0 * static_cast<double>(fc)});
  return to_layout(std::move(f));
}

GradientLayout transformer_base_layout() {
  constexpr std::int64_t d = 512, ff = 2048, vocab = 33'708;
  // Tokens per sentence, source and target alike: an assumption (WMT En-De sentences average about 25 subword
  // tokens); it only weighs the attention scores (2 L^2 d each way) against the projections (2 params per token).
  constexpr double L = 25;
  const double attention_flops = 2.0 * 4 * d * d * L + 2.0 * 2 * L * L * d;
  const std::int64_t attention = 4 * d * d;
  const std::int64_t ffn = d * ff + ff + ff * d + d;
  const double ffn_flops = 2.0 * 2 * d * ff * L;
  const std::int64_t norm = 2 * d;
  std::vector<ForwardLayer> f;
  // The shared embedding's gradient is complete only when the backward pass has gone back through both inputs,
  // so it comes last; the output projection's time comes first, with no gradient of its own.
  f.push_back({"embedding (shared)", vocab * d, 0});
  for (int i = 0; i < 6; ++i)
    f.push_back({"encoder." + std::to_string(i), attention + ffn + 2 * norm, attention_flops + ffn_flops});
  f.push_back({"encoder.norm", norm, 0});
  for (int i = 0; i < 6; ++i)  // self-attention, attention over the encoder's output, feed-forward
    f.push_back({"decoder." + std::to_string(i), 2 * attention + ffn + 3 * norm, 2 * attention_flops + ffn_flops});
  f.push_back({"decoder.norm", norm, 0});
  f.push_back({"output projection (shared weights)", 0, 2.0 * d * vocab * L});
  return to_layout(std::move(f));
}

GradientLayout vgg16_cifar_layout() {
  std::vector<ForwardLayer> f;
  const int widths[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};  // 0: pool
  int in = 3, hw = 32, n = 0;
  for (int w : widths) {
    if (w == 0) {
      hw /= 2;
      continue;
    }
    const std::int64_t weights = 9LL * in * w;
    f.push_back({"conv" + std::to_string(++n), weights + w, 2.0 * static_cast<double>(weights) * hw * hw});
    in = w;
  }
  f.push_back({"fc1", 512LL * 512 + 512, 2.0 * 512 * 512});
  f.push_back({"fc2", 512LL * 10 + 10, 2.0 * 512 * 10});
  return to_layout(std::move(f));
}

}  // namespace quorum
