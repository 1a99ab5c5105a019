// The proxy models' loss and gradient on the GPU: cuBLAS for the products, GpuKernels for the rest. Parameters and
// gradients stay in the host vectors the algorithms average (they are small: a proxy, not ResNet-50); each step
// uploads the parameters and the batch, and downloads the gradient. Initialisation and evaluation delegate to the
// host model, so every replica starts from the same weights and evaluations match the CPU's.
//
// Layouts (all column-major for cuBLAS): the batch x (host row-major n x dim) is dim x n; softmax W is dim x classes;
// the MLP's W1 is dim x hidden and W2 hidden x classes, as in kernels/models; the CNN's activations are NHWC, a
// channels x positions matrix (the host's row-major positions x channels), see kernels/models/Cnn.hpp.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <mutex>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "kernels/models/Cnn.hpp"
#include "kernels/models/HyperplaneRegression.hpp"
#include "kernels/models/Mlp.hpp"
#include "kernels/models/SoftmaxRegression.hpp"
#include "validation/gpu/CudaCheck.hpp"
#include "validation/gpu/GpuKernels.hpp"
#include "validation/gpu/GpuSupport.hpp"

namespace quorum::gpu {

namespace {

// A device buffer that grows as needed.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }
  T* get(std::size_t n) {
    if (n > size_) {
      if (data_) cudaFree(data_);
      data_ = nullptr;
      cuda_check(cudaMalloc(reinterpret_cast<void**>(&data_), std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc");
      size_ = n;
    }
    return data_;
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// What every GPU model shares: device, stream, cuBLAS handle, parameter/gradient/batch buffers.
class GpuModel : public Model {
 public:
  GpuModel(std::shared_ptr<const Model> host, int device) : host_(std::move(host)), device_(device) {
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    cuda_check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    cublas_check(cublasCreate(&blas_), "cublasCreate");
    cublas_check(cublasSetStream(blas_, stream_), "cublasSetStream");
  }
  ~GpuModel() override {
    cudaSetDevice(device_);
    cublasDestroy(blas_);
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return host_->name(); }
  std::size_t num_params() const override { return host_->num_params(); }
  void init(std::span<float> params, std::uint64_t seed) const override { host_->init(params, seed); }
  Evaluation evaluate_batch(std::span<const float> params, const Batch& batch) const override {
    return host_->evaluate_batch(params, batch);
  }

  double loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad) const override {
    // One step at a time per model; the device is per host thread in CUDA, so set it on every call.
    std::lock_guard lock(mutex_);
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    const int n = static_cast<int>(batch.size());
    const int dim = static_cast<int>(batch.x.cols());
    float* d_params = params_.get(params.size());
    float* d_grad = grad_.get(grad.size());
    float* d_x = x_.get(static_cast<std::size_t>(n) * dim);
    cuda_check(cudaMemcpyAsync(d_params, params.data(), params.size_bytes(), cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync (parameters)");
    cuda_check(cudaMemcpyAsync(d_x, batch.x.data(), sizeof(float) * static_cast<std::size_t>(n) * dim,
                               cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync (batch)");
    float* d_ones = ones_.get(static_cast<std::size_t>(n));
    fill(d_ones, 1.0f, n, stream_);
    const double loss = compute(params, batch, d_params, d_x, n, dim, d_grad);
    cuda_check(cudaMemcpyAsync(grad.data(), d_grad, grad.size_bytes(), cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (gradient)");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    cuda_check(cudaGetLastError(), "a proxy model kernel");
    return loss;
  }

 protected:
  // Writes the gradient to d_grad (same layout as the parameters) and returns the mean loss; may synchronise.
  virtual double compute(std::span<const float> params, const Batch& batch, const float* d_params, const float* d_x,
                         int n, int dim, float* d_grad) const = 0;

  // Mean of the per-sample cross-entropy losses the softmax kernel wrote.
  double mean_loss(const double* d_loss, int n) const {
    host_loss_.resize(static_cast<std::size_t>(n));
    cuda_check(cudaMemcpyAsync(host_loss_.data(), d_loss, sizeof(double) * static_cast<std::size_t>(n),
                               cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (loss)");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    return std::accumulate(host_loss_.begin(), host_loss_.end(), 0.0) / n;
  }

  int* upload_labels(const Batch& batch) const {
    int* d = labels_.get(batch.labels.size());
    static_assert(sizeof(int) == sizeof(std::int32_t));
    cuda_check(cudaMemcpyAsync(d, batch.labels.data(), sizeof(int) * batch.labels.size(), cudaMemcpyHostToDevice,
                               stream_),
               "cudaMemcpyAsync (labels)");
    return d;
  }

  // C = op(A) op(B), column-major.
  void gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float* a, int lda, const float* b,
            int ldb, float* c, int ldc, float alpha = 1.0f) const {
    const float beta = 0.0f;
    cublas_check(cublasSgemm(blas_, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc), "cublasSgemm");
  }
  // y = alpha op(A) x
  void gemv(cublasOperation_t t, int m, int n, const float* a, int lda, const float* x, float* y,
            float alpha = 1.0f) const {
    const float beta = 0.0f;
    cublas_check(cublasSgemv(blas_, t, m, n, &alpha, a, lda, x, 1, &beta, y, 1), "cublasSgemv");
  }

  std::shared_ptr<const Model> host_;
  int device_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  mutable std::mutex mutex_;
  mutable DeviceBuffer<float> params_, grad_, x_, ones_, work1_, work2_, work3_;
  mutable DeviceBuffer<int> labels_;
  mutable DeviceBuffer<double> loss_;
  mutable std::vector<double> host_loss_;
};

class GpuSoftmaxRegression final : public GpuModel {
 public:
  GpuSoftmaxRegression(std::shared_ptr<const Model> host, int device, int classes)
      : GpuModel(std::move(host), device), classes_(classes) {}

 protected:
  double compute(std::span<const float>, const Batch& batch, const float* d_params, const float* d_x, int n, int dim,
                 float* d_grad) const override {
    const float* w = d_params;
    const float* b = d_params + static_cast<std::ptrdiff_t>(dim) * classes_;
    float* logits = work1_.get(static_cast<std::size_t>(classes_) * n);  // classes x n
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, classes_, n, dim, w, dim, d_x, dim, logits, classes_);
    add_bias_columns(logits, b, classes_, n, stream_);
    double* loss = loss_.get(static_cast<std::size_t>(n));
    softmax_cross_entropy_backward(logits, upload_labels(batch), classes_, n, loss, stream_);
    // gW = x^T G^T (dim x classes), gb = G 1
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, dim, classes_, n, d_x, dim, logits, classes_, d_grad, dim);
    gemv(CUBLAS_OP_N, classes_, n, logits, classes_, ones_.get(static_cast<std::size_t>(n)),
         d_grad + static_cast<std::ptrdiff_t>(dim) * classes_);
    return mean_loss(loss, n);
  }

 private:
  int classes_;
};

class GpuHyperplane final : public GpuModel {
 public:
  using GpuModel::GpuModel;

 protected:
  double compute(std::span<const float> params, const Batch& batch, const float* d_params, const float* d_x, int n,
                 int dim, float* d_grad) const override {
    float* y = work2_.get(static_cast<std::size_t>(n));
    cuda_check(cudaMemcpyAsync(y, batch.targets.data(), sizeof(float) * static_cast<std::size_t>(n),
                               cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync (targets)");
    float* r = work1_.get(static_cast<std::size_t>(n));
    gemv(CUBLAS_OP_T, dim, n, d_x, dim, d_params, r);  // r = x w
    residual(r, params[static_cast<std::size_t>(dim)], y, n, stream_);
    const float scale = 2.0f / static_cast<float>(n);
    gemv(CUBLAS_OP_N, dim, n, d_x, dim, r, d_grad, scale);  // gw = 2/n x^T r
    float sum_sq = 0.0f, sum = 0.0f;
    cublas_check(cublasSetPointerMode(blas_, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    cublas_check(cublasSdot(blas_, n, r, 1, r, 1, &sum_sq), "cublasSdot");
    cublas_check(cublasSdot(blas_, n, r, 1, ones_.get(static_cast<std::size_t>(n)), 1, &sum), "cublasSdot");
    const float gb = scale * sum;
    cuda_check(cudaMemcpyAsync(d_grad + dim, &gb, sizeof(float), cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync (bias gradient)");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");  // gb lives on this stack frame
    return static_cast<double>(sum_sq) / n;
  }
};

class GpuMlp final : public GpuModel {
 public:
  GpuMlp(std::shared_ptr<const Model> host, int device, int hidden, int classes)
      : GpuModel(std::move(host), device), hidden_(hidden), classes_(classes) {}

 protected:
  double compute(std::span<const float>, const Batch& batch, const float* d_params, const float* d_x, int n, int dim,
                 float* d_grad) const override {
    const std::ptrdiff_t o_b1 = static_cast<std::ptrdiff_t>(dim) * hidden_, o_w2 = o_b1 + hidden_,
                         o_b2 = o_w2 + static_cast<std::ptrdiff_t>(hidden_) * classes_;
    const float *w1 = d_params, *b1 = d_params + o_b1, *w2 = d_params + o_w2, *b2 = d_params + o_b2;
    float* h = work1_.get(static_cast<std::size_t>(hidden_) * n);       // hidden x n
    float* logits = work2_.get(static_cast<std::size_t>(classes_) * n); // classes x n
    float* dh = work3_.get(static_cast<std::size_t>(hidden_) * n);      // hidden x n
    const float* ones = ones_.get(static_cast<std::size_t>(n));
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, hidden_, n, dim, w1, dim, d_x, dim, h, hidden_);
    add_bias_columns(h, b1, hidden_, n, stream_);
    relu_forward(h, hidden_ * n, stream_);
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, classes_, n, hidden_, w2, hidden_, h, hidden_, logits, classes_);
    add_bias_columns(logits, b2, classes_, n, stream_);
    double* loss = loss_.get(static_cast<std::size_t>(n));
    softmax_cross_entropy_backward(logits, upload_labels(batch), classes_, n, loss, stream_);
    // gW2 = h G^T, gb2 = G 1, dh = W2 G masked by h > 0, gW1 = x dh^T, gb1 = dh 1.
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, hidden_, classes_, n, h, hidden_, logits, classes_, d_grad + o_w2, hidden_);
    gemv(CUBLAS_OP_N, classes_, n, logits, classes_, ones, d_grad + o_b2);
    gemm(CUBLAS_OP_N, CUBLAS_OP_N, hidden_, n, classes_, w2, hidden_, logits, classes_, dh, hidden_);
    relu_backward(dh, h, hidden_ * n, stream_);
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, dim, hidden_, n, d_x, dim, dh, hidden_, d_grad, dim);
    gemv(CUBLAS_OP_N, hidden_, n, dh, hidden_, ones, d_grad + o_b1);
    return mean_loss(loss, n);
  }

 private:
  int hidden_, classes_;
};

// The convolutional proxy, layer by layer as the host's Cnn: im2col, one cuBLAS GEMM per convolution, the fused max
// pool and ReLU; backward through the same steps (col2im for the second layer's input gradient).
class GpuCnn final : public GpuModel {
 public:
  GpuCnn(std::shared_ptr<const Model> host, int device, const Cnn& shape)
      : GpuModel(std::move(host), device),
        side_(static_cast<int>(shape.side())),
        c1_(static_cast<int>(shape.conv1_channels())),
        c2_(static_cast<int>(shape.conv2_channels())),
        classes_(shape.classes()),
        s1_(static_cast<int>(shape.conv1_side())),
        p1_(static_cast<int>(shape.pool1_side())),
        s2_(static_cast<int>(shape.conv2_side())),
        features_(static_cast<int>(shape.features())) {}

 protected:
  double compute(std::span<const float>, const Batch& batch, const float* d_params, const float* d_x, int n, int,
                 float* d_grad) const override {
    constexpr int kernel = static_cast<int>(Cnn::kKernel), taps = kernel * kernel;
    const int rows1 = taps, rows2 = taps * c1_;                               // patch rows per layer
    const int n1 = n * s1_ * s1_, n2 = n * s2_ * s2_;                          // output positions per layer
    const int pooled1 = n * p1_ * p1_ * c1_, pooled2 = n * features_;          // pool outputs (entries)
    const std::ptrdiff_t o_b1 = static_cast<std::ptrdiff_t>(rows1) * c1_, o_k2 = o_b1 + c1_,
                         o_b2 = o_k2 + static_cast<std::ptrdiff_t>(rows2) * c2_, o_wd = o_b2 + c2_,
                         o_bd = o_wd + static_cast<std::ptrdiff_t>(features_) * classes_;
    const float *k1 = d_params, *b1 = d_params + o_b1, *k2 = d_params + o_k2, *b2 = d_params + o_b2,
                *wd = d_params + o_wd, *bd = d_params + o_bd;
    float* patches1 = patches1_.get(static_cast<std::size_t>(rows1) * n1);
    float* z1 = z1_.get(static_cast<std::size_t>(c1_) * n1);  // conv1 output, then its gradient
    float* a1 = a1_.get(static_cast<std::size_t>(pooled1));
    int* arg1 = arg1_.get(static_cast<std::size_t>(pooled1));
    float* patches2 = patches2_.get(static_cast<std::size_t>(rows2) * n2);
    float* z2 = z2_.get(static_cast<std::size_t>(c2_) * n2);  // conv2 output, then its gradient
    float* a2 = a2_.get(static_cast<std::size_t>(pooled2));
    int* arg2 = arg2_.get(static_cast<std::size_t>(pooled2));
    float* logits = work1_.get(static_cast<std::size_t>(classes_) * n);
    float* d_a2 = work2_.get(static_cast<std::size_t>(pooled2));
    float* d_patches2 = d_patches2_.get(static_cast<std::size_t>(rows2) * n2);
    float* d_a1 = work3_.get(static_cast<std::size_t>(pooled1));
    float* ones = ones_positions_.get(static_cast<std::size_t>(n1));
    fill(ones, 1.0f, n1, stream_);

    // Forward: Z = K^T patches + b per layer, then pool and rectify; logits = Wd^T a2 + bd.
    im2col(d_x, n, side_, 1, kernel, patches1, stream_);
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, c1_, n1, rows1, k1, rows1, patches1, rows1, z1, c1_);
    add_bias_columns(z1, b1, c1_, n1, stream_);
    max_pool_relu(z1, n, s1_, c1_, a1, arg1, stream_);
    im2col(a1, n, p1_, c1_, kernel, patches2, stream_);
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, c2_, n2, rows2, k2, rows2, patches2, rows2, z2, c2_);
    add_bias_columns(z2, b2, c2_, n2, stream_);
    max_pool_relu(z2, n, s2_, c2_, a2, arg2, stream_);
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, classes_, n, features_, wd, features_, a2, features_, logits, classes_);
    add_bias_columns(logits, bd, classes_, n, stream_);
    double* loss = loss_.get(static_cast<std::size_t>(n));
    softmax_cross_entropy_backward(logits, upload_labels(batch), classes_, n, loss, stream_);

    // Backward. Dense: gWd = a2 G^T, gbd = G 1, d_a2 = Wd G.
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, features_, classes_, n, a2, features_, logits, classes_, d_grad + o_wd, features_);
    gemv(CUBLAS_OP_N, classes_, n, logits, classes_, ones, d_grad + o_bd);
    gemm(CUBLAS_OP_N, CUBLAS_OP_N, features_, n, classes_, wd, features_, logits, classes_, d_a2, features_);
    // conv2: dZ2 through the pool; gK2 = patches2 dZ2^T, gb2 = dZ2 1, d_patches2 = K2 dZ2, then col2im.
    max_pool_relu_backward(d_a2, a2, arg2, pooled2, z2, c2_ * n2, stream_);
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, rows2, c2_, n2, patches2, rows2, z2, c2_, d_grad + o_k2, rows2);
    gemv(CUBLAS_OP_N, c2_, n2, z2, c2_, ones, d_grad + o_b2);
    gemm(CUBLAS_OP_N, CUBLAS_OP_N, rows2, n2, c2_, k2, rows2, z2, c2_, d_patches2, rows2);
    col2im(d_patches2, n, p1_, c1_, kernel, d_a1, stream_);
    // conv1: dZ1 through the pool; gK1 = patches1 dZ1^T, gb1 = dZ1 1.
    max_pool_relu_backward(d_a1, a1, arg1, pooled1, z1, c1_ * n1, stream_);
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, rows1, c1_, n1, patches1, rows1, z1, c1_, d_grad, rows1);
    gemv(CUBLAS_OP_N, c1_, n1, z1, c1_, ones, d_grad + o_b1);
    return mean_loss(loss, n);
  }

 private:
  int side_, c1_, c2_, classes_, s1_, p1_, s2_, features_;
  mutable DeviceBuffer<float> patches1_, z1_, a1_, patches2_, z2_, a2_, d_patches2_, ones_positions_;
  mutable DeviceBuffer<int> arg1_, arg2_;
};

}  // namespace

std::shared_ptr<const Model> make_gpu_model(const MathSetup& setup) {
  if (!setup.model) throw std::invalid_argument("no proxy model to put on the GPU (math.model is none)");
  const int device = current_device();
  const std::string name = setup.model->name();
  const int classes = setup.train ? setup.train->classes() : 0;
  if (name == "hyperplane") return std::make_shared<GpuHyperplane>(setup.model, device);
  if (name == "softmax") return std::make_shared<GpuSoftmaxRegression>(setup.model, device, classes);
  if (name == "mlp")
    return std::make_shared<GpuMlp>(setup.model, device, static_cast<int>(setup.config.hidden), classes);
  if (name == "cnn") return std::make_shared<GpuCnn>(setup.model, device, dynamic_cast<const Cnn&>(*setup.model));
  throw std::invalid_argument("no GPU version of the proxy model '" + name + "'");
}

}  // namespace quorum::gpu
