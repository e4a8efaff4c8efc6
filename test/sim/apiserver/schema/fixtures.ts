// Shared by the schema tests: a cut-down MachineSet schema with the constructs the real CRDs use.
import { applySchema } from '../../../../sim/apiserver/schema/index.js';
import type { FieldCause, JSONSchemaProps } from '../../../../sim/apiserver/schema/index.js';

export const machineSetSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['selector'],
      properties: {
        replicas: { type: 'integer', format: 'int32', default: 1, minimum: 0 },
        deletePolicy: { type: 'string', enum: ['Random', 'Newest', 'Oldest'] },
        minReadySeconds: { type: 'integer', format: 'int32' },
        selector: {
          type: 'object',
          properties: {
            matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
          },
          'x-kubernetes-map-type': 'atomic',
        },
        template: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                providerSpec: {
                  type: 'object',
                  properties: { value: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
                },
                taints: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['effect', 'key'],
                    properties: {
                      effect: { type: 'string' },
                      key: { type: 'string' },
                      value: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', format: 'int32' },
        errorMessage: { type: 'string', nullable: true },
      },
    },
  },
};

export const valid = {
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'MachineSet',
  metadata: { name: 'ms', namespace: 'openshift-machine-api', labels: { a: 'b' } },
  spec: { replicas: 2, selector: { matchLabels: { a: 'b' } } },
};

export function apply(obj: unknown, schema: JSONSchemaProps = machineSetSchema) {
  return applySchema(obj, schema);
}

export function messages(causes: FieldCause[]): string[] {
  return causes.map((c) => `${c.type} ${c.field}: ${c.message}`);
}
