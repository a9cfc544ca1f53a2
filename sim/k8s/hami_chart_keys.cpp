#include "sim/k8s/hami_chart_keys.hpp"

#include <algorithm>
#include <array>

namespace gpusim::k8s {
namespace {

// Every setting of HAMi's Helm chart (Project-HAMi/HAMi charts/hami at 4707fb02): the leaves of
// values.yaml and the .Values paths its templates read, as dotted paths. A map the chart passes on
// whole (resources, tolerations, labels, node selectors, images, security contexts, ...) is one
// leaf: whatever it holds is Kubernetes' or the image helper's to read, not the chart's.
// Regenerate after a chart update: walk values.yaml, stop at those maps, add the templates' paths.
constexpr std::array kLeaves = {
  "birenResourceName", "dcuResourceCores", "dcuResourceMem", "dcuResourceName", "device-config.content",
  "devicePlugin.createRuntimeClass", "devicePlugin.deviceCoreScaling", "devicePlugin.deviceListStrategy",
  "devicePlugin.deviceMemoryScaling", "devicePlugin.deviceSplitCount", "devicePlugin.disablecorelimit",
  "devicePlugin.enableNumaTopology", "devicePlugin.enabled", "devicePlugin.extraArgs", "devicePlugin.extraEnvs",
  "devicePlugin.gdrcopyEnabled", "devicePlugin.gdsEnabled", "devicePlugin.gpuOperatorToolkitReady",
  "devicePlugin.hostNetwork", "devicePlugin.hostPID", "devicePlugin.image", "devicePlugin.libPath",
  "devicePlugin.migStrategy", "devicePlugin.mofedEnabled", "devicePlugin.monitor.ctrPath",
  "devicePlugin.monitor.extraArgs", "devicePlugin.monitor.extraEnvs", "devicePlugin.monitor.image",
  "devicePlugin.monitor.resources", "devicePlugin.monitor.resyncInterval", "devicePlugin.monitor.securityContext",
  "devicePlugin.nodeConfiguration.config", "devicePlugin.nodeConfiguration.externalConfigName",
  "devicePlugin.nvidiaDriverRoot", "devicePlugin.nvidiaHookPath", "devicePlugin.nvidiaNodeSelector",
  "devicePlugin.passDeviceSpecsEnabled", "devicePlugin.pluginPath", "devicePlugin.podAnnotations",
  "devicePlugin.preConfiguredDeviceMemory", "devicePlugin.resources", "devicePlugin.runtimeClassName",
  "devicePlugin.securityContext", "devicePlugin.service.annotations", "devicePlugin.service.httpPort",
  "devicePlugin.service.labels", "devicePlugin.service.type", "devicePlugin.tolerations",
  "devicePlugin.updateStrategy", "devices.amd.customresources", "devices.ascend.customresources",
  "devices.ascend.enabled", "devices.ascend.extraArgs", "devices.ascend.hamiVnpuCore", "devices.ascend.image",
  "devices.ascend.imagePullPolicy", "devices.ascend.nodeSelector", "devices.ascend.runtimeClassName",
  "devices.ascend.tolerations", "devices.awsneuron.customresources", "devices.biren.customresources",
  "devices.biren.enabled", "devices.enflame.customresources", "devices.enflame.enabled",
  "devices.iluvatar.customresources", "devices.iluvatar.enabled", "devices.kunlun.customresources",
  "devices.kunlun.enabled", "devices.mthreads.customresources", "devices.mthreads.enabled",
  "devices.nvidia.gpuCorePolicy", "devices.nvidia.libCudaLogLevel", "devices.vastai.customresources",
  "devices.vastai.enabled", "enflameResourceNameDRSGCU", "enflameResourceNameGCUCore",
  "enflameResourceNameGCUMemory", "fullnameOverride", "global.annotations", "global.gpuHookPath",
  "global.imagePullSecrets", "global.imageRegistry", "global.imageTag", "global.labels",
  "global.managedNodeSelector", "global.managedNodeSelectorEnable", "kunlunResourceName", "kunlunResourceVCountName",
  "kunlunResourceVMemoryName", "legacyMetrics", "metaxResourceCore", "metaxResourceMem", "metaxResourceName",
  "metaxsGPUTopologyAware", "mluResourceCores", "mluResourceMem", "mluResourceName", "mockDevicePlugin.enabled",
  "mockDevicePlugin.image", "mockDevicePlugin.tag", "nameOverride", "namespaceOverride", "podSecurityPolicy.enabled",
  "prometheus.enabled", "resourceCores", "resourceMem", "resourceMemPercentage", "resourceName", "resourcePriority",
  "scheduler.admissionWebhook.customURL", "scheduler.admissionWebhook.enabled",
  "scheduler.admissionWebhook.failurePolicy", "scheduler.admissionWebhook.manageNamespaceSelector",
  "scheduler.admissionWebhook.namespaceSelector.matchExpressions",
  "scheduler.admissionWebhook.namespaceSelector.matchLabels",
  "scheduler.admissionWebhook.objectSelector.matchExpressions",
  "scheduler.admissionWebhook.objectSelector.matchLabels", "scheduler.admissionWebhook.reinvocationPolicy",
  "scheduler.admissionWebhook.whitelistNamespaces", "scheduler.certManager.enabled",
  "scheduler.defaultSchedulerPolicy.gpuSchedulerPolicy", "scheduler.defaultSchedulerPolicy.nodeSchedulerPolicy",
  "scheduler.extender.extraArgs", "scheduler.extender.image", "scheduler.extender.resources",
  "scheduler.forceOverwriteDefaultScheduler", "scheduler.kubeScheduler.enabled", "scheduler.kubeScheduler.extraArgs",
  "scheduler.kubeScheduler.extraNewArgs", "scheduler.kubeScheduler.image", "scheduler.kubeScheduler.resources",
  "scheduler.leaderElect", "scheduler.livenessProbe", "scheduler.metricsBindAddress", "scheduler.nodeLabelSelector",
  "scheduler.nodeLockExpire", "scheduler.nodeName", "scheduler.nodeSelector", "scheduler.overwriteEnv",
  "scheduler.patch.enabled", "scheduler.patch.image", "scheduler.patch.imageNew", "scheduler.patch.nodeSelector",
  "scheduler.patch.podAnnotations", "scheduler.patch.priorityClassName", "scheduler.patch.runAsUser",
  "scheduler.patch.tolerations", "scheduler.podAnnotations", "scheduler.replicas", "scheduler.service.annotations",
  "scheduler.service.httpPort", "scheduler.service.httpTargetPort", "scheduler.service.labels",
  "scheduler.service.monitorPort", "scheduler.service.monitorTargetPort", "scheduler.service.schedulerPort",
  "scheduler.service.type", "scheduler.tolerations", "schedulerName", "vastaiResourceName",
};

}  // namespace

ChartKey hami_chart_key(std::string_view path) {
  bool map = false;
  for (std::string_view leaf : kLeaves) {
    // The leaf itself, or something inside a map the chart passes on whole.
    if (path == leaf || (path.starts_with(leaf) && path[leaf.size()] == '.')) return ChartKey::kSetting;
    if (leaf.size() > path.size() && leaf.starts_with(path) && leaf[path.size()] == '.') map = true;
  }
  return map ? ChartKey::kMap : ChartKey::kUnknown;
}

}  // namespace gpusim::k8s
