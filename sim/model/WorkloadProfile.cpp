#include "sim/model/WorkloadProfile.hpp"

#include "sim/model/LayerTables.hpp"

namespace quorum {

namespace {

// The layer tables of the profiles whose models have published shapes (sources in LayerTables.hpp).
std::vector<WorkloadProfile> with_layer_tables(std::vector<WorkloadProfile> profiles) {
  const int resnet50[] = {3, 4, 6, 3}, resnet18[] = {2, 2, 2, 2}, resnet200[] = {3, 24, 36, 3};
  for (auto& p : profiles) {
    // 25,559,081 is ResNet-50 with TensorFlow's 1,001 ImageNet classes (a background class): the papers' models
    // ran on TensorFlow; torchvision's 1,000-class ResNet-50 has 2,049 fewer.
    if (p.name == "resnet50_p100" || p.name == "resnet50_cloud") p.gradients = imagenet_resnet_layout(resnet50, true, 1001);
    if (p.name == "transformer_p100") p.gradients = transformer_base_layout();
    if (p.name == "vgg16_cifar10_1080ti") p.gradients = vgg16_cifar_layout();
    if (p.name == "resnet18_imagenet_1080ti") p.gradients = imagenet_resnet_layout(resnet18, false, 1000);
    if (p.name == "resnet200_imagenet_1080ti") p.gradients = imagenet_resnet_layout(resnet200, true, 1000);
  }
  return profiles;
}

}  // namespace

const std::vector<WorkloadProfile>& workload_profiles() {
  using nlohmann::json;
  static const std::vector<WorkloadProfile> profiles = with_layer_tables({
      {"resnet50_p100", "ResNet-50 on ImageNet, one P100, batch 128: 0.641 s per step", 25'559'081, 128,
       json{{"kind", "constant"}, {"seconds", 1.0 / 1.56}},
       "parameters: WAGMA paper (000) sec. 5.2; 1.56 steps/s on one P100 at batch 128: eager-SGD paper (002) "
       "sec. 7.2.2", {}},
      {"transformer_p100", "Transformer on WMT, batch 64: 179-3,482 ms per step (fit)", 61'362'176, 64,
       json{{"kind", "truncated_lognormal"}, {"mean_s", 0.475}, {"sd_s", 0.144}, {"min_s", 0.179}, {"max_s", 3.482}},
       "parameters: WAGMA paper (000) sec. 5.3; runtime 179 to 3,482 ms, mean 475, sd 144 over 20,653 batches: "
       "eager-SGD paper (002) sec. 2.2; truncated-lognormal fit to those summary statistics", {}},
      {"ppo_habitat", "PPO (ResNet-LSTM) on Habitat, 256 experience steps: 1.7-43.5 s per step (fit)", 8'476'421, 256,
       json{{"kind", "lognormal"}, {"shift_s", 1.7}, {"median_s", 0.2}, {"sigma", 1.5}, {"min_s", 1.7}, {"max_s", 43.5}},
       "parameters: WAGMA paper (000) sec. 5.4; experience collection 1.7 s to 43.5 s over 5,000 iterations, median "
       "below 2 s (000 sec. 5.4, Fig. 9); fit: 1.7 s plus a lognormal of median 0.2 s and sigma 1.5, truncated at "
       "43.5 s (median 1.9 s; the expected maximum of 5,000 draws is about 43 s)", {}},
      {"hyperplane", "hyperplane regression, one GPU, batch 2,048: 1.56 s per step", 8'193, 2048,
       json{{"kind", "constant"}, {"seconds", 1.0 / 0.64}},
       "8,193 parameters, batch 2,048: eager-SGD paper (002) Table 1; 0.64 steps/s on one GPU: 002 sec. 7.2.1", {}},
      {"lstm_ucf101", "Inception+LSTM on UCF101, batch 16: 201-3,410 ms per step (fit)", 34'663'525, 16,
       json{{"kind", "truncated_lognormal"}, {"mean_s", 1.235}, {"sd_s", 0.706}, {"min_s", 0.201}, {"max_s", 3.410}},
       "parameters: eager-SGD paper (002) Table 1; runtime 201 to 3,410 ms, mean 1,235, sd 706 over 1,192 batches: "
       "002 sec. 2.1; truncated-lognormal fit to those summary statistics", {}},
      {"resnet50_cloud", "ResNet-50 on a cloud 2xV100 instance, batch 256: 399-1,892 ms per step (fit)", 25'559'081, 256,
       json{{"kind", "truncated_lognormal"}, {"mean_s", 0.454}, {"sd_s", 0.116}, {"min_s", 0.399}, {"max_s", 1.892}},
       "runtime 399 to 1,892 ms, mean 454, sd 116 on Google Cloud n1-standard-16 with 2x V100: eager-SGD paper (002) "
       "sec. 2.3; truncated-lognormal fit to those summary statistics", {}},
      {"vgg16_cifar10_1080ti", "VGG-16 on CIFAR-10, one GTX 1080 Ti, batch 128: 0.05 s per step (estimate)",
       14'982'474, 128, json{{"kind", "constant"}, {"seconds", 0.05}},
       "Prague paper (001) sec. 7.1-7.4 setup (Maverick2, batch 128, Fig. 15). Parameters: the CIFAR VGG-16 (13 conv "
       "layers, 14,714,688, plus FC 512-512-10, 267,786), about 60 MB as the AD-PSGD paper (004) sec. 5.1.1 says. "
       "Step time: an estimate, as the papers give none in their text: 313 M multiply-adds per 32x32 image forward, x3 "
       "for forward and backward, x2 flop each, x128 = 240 GFLOP at about 5 TFLOP/s sustained on a GTX 1080 Ti (45% "
       "of its 11.3 TFLOP/s fp32 peak)", {}},
      {"resnet18_imagenet_1080ti", "ResNet-18 on ImageNet, one GTX 1080 Ti, batch 256: 0.608 s per step (derived)",
       11'689'512, 256, json{{"kind", "constant"}, {"seconds", 0.608}},
       "Prague paper (001) Fig. 15 (batch 256) and Fig. 21: Prague Static trains 415.8 images/s per worker, 0.616 s "
       "per step including its P-Reduce, which the simulator puts at 8 ms on Maverick2: 0.608 s of computation (so "
       "the simulated Prague Static matches the paper's homogeneous rate by construction). Parameters: torchvision's "
       "ResNet-18 (11,689,512)", {}},
      {"resnet200_imagenet_1080ti", "ResNet-200 on ImageNet, one GTX 1080 Ti, batch 32: 0.571 s per step (derived)",
       64'673'832, 32, json{{"kind", "constant"}, {"seconds", 0.571}},
       "Prague paper (001) Fig. 15 (batch 32) and Fig. 22: Prague Static trains 52.34 images/s per worker, 0.611 s "
       "per step including its P-Reduce, which the simulator puts at 40 ms on Maverick2 for 259 MB: 0.571 s of "
       "computation (matching the paper's homogeneous Prague Static by construction). Parameters: ResNet-200 (He et "
       "al., ECCV 2016), 64.7 M", {}},
      {"resnet20_cifar10_p100", "ResNet-20 on CIFAR-10, one P100, batch 32: 11.5 ms per step (derived)", 272'474, 32,
       json{{"kind", "constant"}, {"seconds", 0.0115}},
       "AD-PSGD paper (004) sec. 5.4 robustness table: 16 workers take 1.22 s per CIFAR-10 epoch with a speedup of "
       "14.78, so one worker takes 18.0 s for 50,000 / 32 = 1,563 steps, 11.5 ms each. Parameters: ResNet-20 "
       "(He et al. 2016, 0.27 M; Keras resnet20 v1 count 272,474), about 1 MB as 004 sec. 5.1.1 says", {}},
  });
  return profiles;
}

const WorkloadProfile* find_workload_profile(const std::string& name) {
  for (const auto& p : workload_profiles())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace quorum
