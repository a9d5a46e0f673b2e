/**
 * `@kubegen/runtime/webhook`: webhooks (controller-runtime `pkg/webhook`, `webhook/admission`, `webhook/conversion`,
 * `pkg/certwatcher`): admission and conversion handlers, the HTTPS server, serving certificates.
 */
export {
  DEFAULT_MAX_REQUEST_BYTES, DEFAULT_WEBHOOK_CERT_DIR, DEFAULT_WEBHOOK_PORT, WebhookServer
} from '../webhook/server.js';
export type { WebhookServerOptions } from '../webhook/server.js';
export {
  admissionWebhook, allowed, defaultingWebhook, denied, errored, patched, validatingWebhook
} from '../webhook/admission.js';
export type {
  AdmissionHandler, AdmissionRequest, AdmissionResponse, Defaulter, Validator, Warnings
} from '../webhook/admission.js';
export { crdValidationWebhook } from '../webhook/crd-validation.js';
export type { CrdValidationWebhookOptions } from '../webhook/crd-validation.js';
export { ConversionHandler, conversionWebhook } from '../webhook/conversion.js';
export type {
  ConversionOptions, ConversionRequest, ConversionResponse, SpokeConversion
} from '../webhook/conversion.js';
export {
  generateCertificateSet, generateClientCertificate, generateServingCertificate, writeServingCertificate
} from '../certs/self-signed.js';
export { CertWatcher } from '../certs/cert-watcher.js';
export type { CertificatePair, CertWatcherOptions } from '../certs/cert-watcher.js';
export type {
  CertificateFileNames, CertificateRequest, CertificateSet, ClientCertificateOptions, ServingCertificate,
  ServingCertificateOptions
} from '../certs/self-signed.js';
