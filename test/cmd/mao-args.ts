// The argument lists the machine-api-operator gives each container of the machine-api-controllers
// Deployment (its pkg/operator/sync.go newContainers), so tests start our binaries exactly as a cluster does.
export const MAO_NAMESPACE = 'openshift-machine-api';

/** Every container: klog's flags, leader election with a 120 s lease, the namespace. */
export const maoCommonArgs = [
  '--logtostderr=true',
  '--v=3',
  '--leader-elect=true',
  '--leader-elect-lease-duration=120s',
  `--namespace=${MAO_NAMESPACE}`,
];

/**
 * The operator lists every OpenShift feature gate, sorted, enabled or not; most mean nothing to these binaries.
 * A sample of today's names, with the one these binaries act on.
 */
export const maoFeatureGatesArg =
  '--feature-gates=' +
  [
    'AWSClusterHostedDNS=false',
    'AdditionalRoutingCapabilities=true',
    'AdminNetworkPolicy=true',
    'BuildCSIVolumes=true',
    'ClusterAPIInstallIBMCloud=false',
    'GCPLabelsTags=true',
    'MachineAPIMigration=false',
    'MachineConfigNodes=true',
    'NetworkLiveMigration=true',
    'VSphereControlPlaneMachineSet=true',
  ].join(',');

/** The cluster's TLS profile (Intermediate), as the operator turns it into flags for the webhook-serving container. */
export const maoTlsArgs = [
  '--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256,' +
    'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,' +
    'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  '--tls-min-version=VersionTLS12',
];

export const maoArgs = {
  /** machine-controller (the provider binary); GCP (and Azure) also get --max-concurrent-reconciles=10. */
  machineController: (cloud: 'aws' | 'gcp' | 'ibmcloud') => [
    ...maoCommonArgs,
    maoFeatureGatesArg,
    ...(cloud === 'gcp' ? ['--max-concurrent-reconciles=10'] : []),
  ],
  machineSetController: [...maoCommonArgs, maoFeatureGatesArg, ...maoTlsArgs],
  nodeLinkController: [...maoCommonArgs],
  machineHealthCheck: [...maoCommonArgs],
  /**
   * The machine-api-termination-handler DaemonSet's container (newTerminationContainers): no leader election,
   * --node-name from the downward API ($(NODE_NAME), expanded by the kubelet).
   */
  terminationHandler: (nodeName: string) => [
    '--logtostderr=true',
    '--v=3',
    `--node-name=${nodeName}`,
    `--namespace=${MAO_NAMESPACE}`,
    '--poll-interval-seconds=5',
  ],
};
