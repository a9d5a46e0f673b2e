/**
 * `@kubegen/runtime/webhook`: webhooks (controller-runtime `pkg/webhook`, `webhook/admission`, `webhook/conversion`,
 * `pkg/certwatcher`): admission and conversion handlers, the HTTPS server, serving certificates.
 */
export {
  DEFAULT_MAX_REQUEST_BYTES, DEFAULT_WEBHOOK_CERT_DIR, DEFAULT_WEBHOOK_PORT, WebhookServer, type WebhookServerOptions
} from '../webhook/server.js';
export {
  admissionWebhook, allowed, defaultingWebhook, denied, errored, patched, validatingWebhook, type AdmissionHandler,
  type AdmissionRequest, type AdmissionResponse, type Defaulter, type Validator, type Warnings
} from '../webhook/admission.js';
export { crdValidationWebhook, type CrdValidationWebhookOptions } from '../webhook/crd-validation.js';
export {
  ConversionHandler, conversionWebhook, type ConversionOptions, type ConversionRequest, type ConversionResponse,
  type SpokeConversion
} from '../webhook/conversion.js';
export {
  generateCertificateSet, generateClientCertificate, generateServingCertificate, writeServingCertificate,
  type CertificateFileNames, type CertificateRequest, type CertificateSet, type ClientCertificateOptions,
  type ServingCertificate, type ServingCertificateOptions
} from '../certs/self-signed.js';
export { CertWatcher, type CertificatePair, type CertWatcherOptions } from '../certs/cert-watcher.js';
