#include "sim/model/WorkloadProfile.hpp"

namespace quorum {

const std::vector<WorkloadProfile>& workload_profiles() {
  using nlohmann::json;
  static const std::vector<WorkloadProfile> profiles = {
      {"resnet50_p100", "ResNet-50 on ImageNet, one P100, batch 128: 0.641 s per step", 25'559'081, 128,
       json{{"kind", "constant"}, {"seconds", 1.0 / 1.56}},
       "parameters: WAGMA paper (000) sec. 5.2; 1.56 steps/s on one P100 at batch 128: eager-SGD paper (002) "
       "sec. 7.2.2"},
      {"transformer_p100", "Transformer on WMT, batch 64: 179-3,482 ms per step (fit)", 61'362'176, 64,
       json{{"kind", "truncated_lognormal"}, {"mean_s", 0.475}, {"sd_s", 0.144}, {"min_s", 0.179}, {"max_s", 3.482}},
       "parameters: WAGMA paper (000) sec. 5.3; runtime 179 to 3,482 ms, mean 475, sd 144 over 20,653 batches: "
       "eager-SGD paper (002) sec. 2.2; truncated-lognormal fit to those summary statistics"},
      {"ppo_habitat", "PPO (ResNet-LSTM) on Habitat, 256 experience steps: 1.7-43.5 s per step (fit)", 8'476'421, 256,
       json{{"kind", "lognormal"}, {"shift_s", 1.7}, {"median_s", 0.2}, {"sigma", 1.5}, {"min_s", 1.7}, {"max_s", 43.5}},
       "parameters: WAGMA paper (000) sec. 5.4; experience collection 1.7 s to 43.5 s over 5,000 iterations, median "
       "below 2 s (000 sec. 5.4, Fig. 9); fit: 1.7 s plus a lognormal of median 0.2 s and sigma 1.5, truncated at "
       "43.5 s (median 1.9 s; the expected maximum of 5,000 draws is about 43 s)"},
      {"hyperplane", "hyperplane regression, one GPU, batch 2,048: 1.56 s per step", 8'193, 2048,
       json{{"kind", "constant"}, {"seconds", 1.0 / 0.64}},
       "8,193 parameters, batch 2,048: eager-SGD paper (002) Table 1; 0.64 steps/s on one GPU: 002 sec. 7.2.1"},
      {"lstm_ucf101", "Inception+LSTM on UCF101, batch 16: 201-3,410 ms per step (fit)", 34'663'525, 16,
       json{{"kind", "truncated_lognormal"}, {"mean_s", 1.235}, {"sd_s", 0.706}, {"min_s", 0.201}, {"max_s", 3.410}},
       "parameters: eager-SGD paper (002) Table 1; runtime 201 to 3,410 ms, mean 1,235, sd 706 over 1,192 batches: "
       "002 sec. 2.1; truncated-lognormal fit to those summary statistics"},
      {"resnet50_cloud", "ResNet-50 on a cloud 2xV100 instance, batch 256: 399-1,892 ms per step (fit)", 25'559'081, 256,
       json{{"kind", "truncated_lognormal"}, {"mean_s", 0.454}, {"sd_s", 0.116}, {"min_s", 0.399}, {"max_s", 1.892}},
       "runtime 399 to 1,892 ms, mean 454, sd 116 on Google Cloud n1-standard-16 with 2x V100: eager-SGD paper (002) "
       "sec. 2.3; truncated-lognormal fit to those summary statistics"},
  };
  return profiles;
}

const WorkloadProfile* find_workload_profile(const std::string& name) {
  for (const auto& p : workload_profiles())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace quorum
