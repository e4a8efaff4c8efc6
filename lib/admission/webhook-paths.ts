// Where the machineset-controller serves its admission webhooks and what the webhook configurations call
// them: the machine-api-operator's paths and names, so its WebhookConfigurations find this server unchanged.
export const MachineMutatingWebhookPath = '/mutate-machine-openshift-io-v1beta1-machine';
export const MachineValidatingWebhookPath = '/validate-machine-openshift-io-v1beta1-machine';
export const MachineSetMutatingWebhookPath = '/mutate-machine-openshift-io-v1beta1-machineset';
export const MachineSetValidatingWebhookPath = '/validate-machine-openshift-io-v1beta1-machineset';

export const MachineMutatingWebhookName = 'default.machine.machine.openshift.io';
export const MachineValidatingWebhookName = 'validation.machine.machine.openshift.io';
export const MachineSetMutatingWebhookName = 'default.machineset.machine.openshift.io';
export const MachineSetValidatingWebhookName = 'validation.machineset.machine.openshift.io';

/** The name of both the Mutating- and the ValidatingWebhookConfiguration. */
export const MachineWebhookConfigurationName = 'machine-api';
export const WebhookServiceName = 'machine-api-operator-webhook';
export const WebhookServiceNamespace = 'openshift-machine-api';
export const WebhookServicePort = 443;
export const DefaultWebhookPort = 8443;
export const DefaultWebhookCertDir = '/etc/machine-api-operator/tls';
