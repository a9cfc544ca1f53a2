// Co-location: the same kernels run by N = 1, 2, 4, 8 processes at once (separate CUDA
// contexts, so the driver time-slices them) and by N streams in one process (the closest proxy
// for MPS-style spatial sharing that needs no daemon). Each reports its throughput relative to
// running alone.
//
// Processes: this program re-executes itself as workers (fork + exec, so no CUDA state crosses
// a fork). Each worker initialises CUDA, allocates and warms up, writes "ready", blocks on its
// stdin until the parent releases all of them together, runs for a fixed window and reports.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device/kernels.hpp"
#include "kernels/harness/cuda_check.hpp"
#include "kernels/harness/families.hpp"

namespace gpusim::calib {
namespace {

// One unit of a co-location workload class.
class Workload {
 public:
  Workload(const std::string& name, int sm_count) : name_(name), sm_count_(sm_count) {
    if (name == "vadd") n_ = std::size_t{1} << 26;        // DRAM-bound
    else if (name == "small") n_ = std::size_t{1} << 14;  // launch-bound
    else if (name == "gemm_bf16") dim_ = 4096;            // tensor-core bound
    else if (name == "gemm_fp32") dim_ = 2048;            // CUDA-core bound
    else throw std::runtime_error("unknown co-location workload '" + name + "'");
    if (n_ > 0) {
      for (float** p : {&a_, &b_, &c_}) CUDA_CHECK(cudaMalloc(p, n_ * sizeof(float)));
      launch_fill_random(a_, n_, 1, nullptr);
      launch_fill_random(b_, n_, 2, nullptr);
    } else {
      const std::size_t elt = name == "gemm_bf16" ? 2 : 4;
      const std::size_t count = static_cast<std::size_t>(dim_) * dim_;
      CUDA_CHECK(cudaMalloc(&ga_, elt * count));
      CUDA_CHECK(cudaMalloc(&gb_, elt * count));
      CUDA_CHECK(cudaMalloc(&gc_, 4 * count));
      if (elt == 2) {
        launch_fill_random_bf16(ga_, count, 1, nullptr);
        launch_fill_random_bf16(gb_, count, 2, nullptr);
      } else {
        launch_fill_random(static_cast<float*>(ga_), count, 1, nullptr);
        launch_fill_random(static_cast<float*>(gb_), count, 2, nullptr);
      }
      CUBLAS_CHECK(cublasCreate(&handle_));
    }
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~Workload() {
    for (void* p : {static_cast<void*>(a_), static_cast<void*>(b_), static_cast<void*>(c_), ga_, gb_, gc_}) cudaFree(p);
    if (handle_ != nullptr) cublasDestroy(handle_);
  }
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  void launch(cudaStream_t stream) {
    if (n_ > 0) {
      launch_vector_add(a_, b_, c_, n_, true, sm_count_, stream);
      return;
    }
    const float alpha = 1.0f, beta = 0.0f;
    const bool bf16 = name_ == "gemm_bf16";
    CUBLAS_CHECK(cublasSetStream(handle_, stream));
    CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, dim_, dim_, dim_, &alpha, gb_,
                              bf16 ? CUDA_R_16BF : CUDA_R_32F, dim_, ga_, bf16 ? CUDA_R_16BF : CUDA_R_32F, dim_,
                              &beta, gc_, CUDA_R_32F, dim_,
                              bf16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT));
  }
  // Launches per host synchronisation: small kernels are batched so the loop is not host-bound.
  int batch() const { return name_ == "small" ? 64 : 1; }

 private:
  std::string name_;
  int sm_count_;
  std::size_t n_ = 0;
  int dim_ = 0;
  float* a_ = nullptr;
  float* b_ = nullptr;
  float* c_ = nullptr;
  void* ga_ = nullptr;
  void* gb_ = nullptr;
  void* gc_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

struct Worker {
  pid_t pid = -1;
  FILE* to = nullptr;    // the worker's stdin
  FILE* from = nullptr;  // the worker's stdout
};

Worker spawn(const char* self, const std::string& workload, double window_s, int device) {
  int in_pipe[2], out_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  // Before fork: the child of a threaded process (CUDA's, the progress reporter's) should do no
  // more than dup2 and exec.
  const std::string window = std::to_string(window_s);
  const std::string dev = std::to_string(device);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    close(in_pipe[1]);
    close(out_pipe[0]);
    execl(self, self, "--worker", workload.c_str(), "--window", window.c_str(), "--device", dev.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  return {pid, fdopen(in_pipe[1], "w"), fdopen(out_pipe[0], "r")};
}

std::string read_line(FILE* from) {
  char buffer[256] = {};
  if (std::fgets(buffer, sizeof buffer, from) == nullptr) throw std::runtime_error("a co-location worker failed");
  return buffer;
}

// Runs the given workloads together as processes; returns each one's iterations per second.
std::vector<double> run_processes(const char* self, const std::vector<std::string>& workloads, double window_s,
                                  int device) {
  std::vector<Worker> workers;
  for (const auto& w : workloads) workers.push_back(spawn(self, w, window_s, device));
  for (auto& w : workers) {
    if (read_line(w.from).rfind("ready", 0) != 0) throw std::runtime_error("worker did not get ready");
  }
  for (auto& w : workers) {  // release them together
    std::fputc('g', w.to);
    std::fflush(w.to);
  }
  std::vector<double> throughput;
  for (auto& w : workers) {
    long long iterations = 0;
    double seconds = 0;
    if (std::sscanf(read_line(w.from).c_str(), "done %lld %lf", &iterations, &seconds) != 2 || seconds <= 0) {
      throw std::runtime_error("bad worker report");
    }
    throughput.push_back(static_cast<double>(iterations) / seconds);
    std::fclose(w.to);
    std::fclose(w.from);
    int status = 0;
    waitpid(w.pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("a co-location worker exited with an error");
  }
  return throughput;
}

// N streams of one process, each running `workload`; iterations per second per stream.
std::vector<double> run_streams(const DeviceContext& device, const std::string& workload, int streams, double window_s) {
  std::vector<std::unique_ptr<Workload>> units;
  std::vector<cudaStream_t> handles(static_cast<std::size_t>(streams));
  for (auto& s : handles) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int i = 0; i < streams; ++i) units.push_back(std::make_unique<Workload>(workload, device.sm_count));
  std::vector<long long> iterations(static_cast<std::size_t>(streams), 0);
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  while (elapsed < window_s) {
    for (int i = 0; i < streams; ++i) {
      for (int b = 0; b < units[i]->batch(); ++b) units[i]->launch(handles[i]);
      iterations[i] += units[i]->batch();
    }
    CUDA_CHECK_LAUNCH();
    for (auto& s : handles) CUDA_CHECK(cudaStreamSynchronize(s));
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  for (auto& s : handles) CUDA_CHECK(cudaStreamDestroy(s));
  std::vector<double> throughput;
  for (const long long it : iterations) throughput.push_back(static_cast<double>(it) / elapsed);
  return throughput;
}

nlohmann::json normalised(const std::vector<double>& throughput, const std::vector<double>& solo) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < throughput.size(); ++i) out.push_back(throughput[i] / solo[i]);
  return out;
}

}  // namespace

int colocation_worker(const DeviceContext& device, const std::string& workload, double window_s) {
  Workload unit(workload, device.sm_count);
  for (int i = 0; i < 3 * unit.batch(); ++i) unit.launch(nullptr);  // warm-up
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("ready\n");
  std::fflush(stdout);
  if (std::fgetc(stdin) == EOF) return 1;
  long long iterations = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  while (elapsed < window_s) {
    for (int b = 0; b < unit.batch(); ++b) unit.launch(nullptr);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(nullptr));
    iterations += unit.batch();
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::printf("done %lld %.6f\n", iterations, elapsed);
  std::fflush(stdout);
  return 0;
}

nlohmann::json measure_colocation(const DeviceContext& device, const SweepOptions& options, const char* self) {
  const std::vector<std::string> classes = options.quick ? std::vector<std::string>{"vadd", "gemm_bf16"}
                                                         : std::vector<std::string>{"vadd", "gemm_bf16", "gemm_fp32", "small"};
  const std::vector<int> counts = {1, 2, 4, 8};
  nlohmann::json processes = nlohmann::json::array(), streams = nlohmann::json::array(), pairs = nlohmann::json::array();
  std::map<std::string, double> solo_process, solo_stream;
  for (const auto& c : classes) {
    for (const int n : counts) {
      const auto thr = run_processes(self, std::vector<std::string>(static_cast<std::size_t>(n), c), options.window_s, device.device);
      if (n == 1) solo_process[c] = thr[0];
      processes.push_back({{"class", c}, {"n", n}, {"throughput_per_s", thr},
                           {"norm_throughput", normalised(thr, std::vector<double>(thr.size(), solo_process[c]))}});
      const auto sthr = run_streams(device, c, n, options.window_s);
      if (n == 1) solo_stream[c] = sthr[0];
      streams.push_back({{"class", c}, {"n", n}, {"throughput_per_s", sthr},
                         {"norm_throughput", normalised(sthr, std::vector<double>(sthr.size(), solo_stream[c]))}});
    }
  }
  const std::vector<std::pair<std::string, std::string>> mixes =
      options.quick ? std::vector<std::pair<std::string, std::string>>{{"vadd", "gemm_bf16"}}
                    : std::vector<std::pair<std::string, std::string>>{{"vadd", "gemm_bf16"}, {"small", "gemm_bf16"}, {"gemm_fp32", "gemm_bf16"}};
  for (const auto& [a, b] : mixes) {
    const auto thr = run_processes(self, {a, b}, options.window_s, device.device);
    pairs.push_back({{"a", a}, {"b", b}, {"norm_throughput", {thr[0] / solo_process[a], thr[1] / solo_process[b]}}});
  }
  return {{"window_s", options.window_s}, {"processes", processes}, {"streams", streams}, {"process_pairs", pairs}};
}

}  // namespace gpusim::calib
