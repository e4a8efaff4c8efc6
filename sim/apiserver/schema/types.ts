// The CRD openAPIV3Schema shape (apiextensions.k8s.io/v1 JSONSchemaProps) as it arrives in a CRD manifest,
// and the field causes kube-apiserver puts in a 422 Status when an object does not fit it.

export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | string;
  format?: string;
  description?: string;
  title?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  // Numbers
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  // Strings
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  // Arrays
  items?: JSONSchemaProps;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  // Objects
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  additionalProperties?: boolean | JSONSchemaProps;
  minProperties?: number;
  maxProperties?: number;
  // Composition
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  example?: unknown;
  externalDocs?: { description?: string; url?: string };
  // Kubernetes extensions
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map' | string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular' | string;
  'x-kubernetes-validations'?: Array<{
    rule: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
    fieldPath?: string;
  }>;
}

export type FieldCauseType =
  | 'FieldValueRequired'
  | 'FieldValueForbidden'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueTypeInvalid'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate';

/** One entry of Status.details.causes: what is wrong, where (kube field path), and kube's message. */
export interface FieldCause {
  type: FieldCauseType;
  field: string;
  message: string;
}

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The declared schema of property `key`, looked up as an own property so "__proto__" is never a schema. */
export function propertySchema(s: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  const props = s?.properties;
  return props !== undefined && Object.hasOwn(props, key) ? props[key] : undefined;
}
