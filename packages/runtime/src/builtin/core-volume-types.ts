/** The core/v1 volume sources (and the types below them) custom resources embed with a pod template's volumes. */
export type {
  AWSElasticBlockStoreVolumeSource, AzureDiskVolumeSource, AzureFileVolumeSource, CSIVolumeSource,
  CephFSVolumeSource, CinderVolumeSource, ClusterTrustBundleProjection, ConfigMapProjection, ConfigMapVolumeSource,
  DownwardAPIProjection, DownwardAPIVolumeFile, DownwardAPIVolumeSource, EmptyDirVolumeSource, EphemeralVolumeSource,
  FCVolumeSource, FlexVolumeSource, FlockerVolumeSource, GCEPersistentDiskVolumeSource, GitRepoVolumeSource,
  GlusterfsVolumeSource, HostPathVolumeSource, ISCSIVolumeSource, ImageVolumeSource, KeyToPath, NFSVolumeSource,
  PersistentVolumeClaimTemplate, PersistentVolumeClaimVolumeSource, PhotonPersistentDiskVolumeSource,
  PodCertificateProjection, PortworxVolumeSource, ProjectedVolumeSource, QuobyteVolumeSource, RBDVolumeSource,
  ScaleIOVolumeSource, SecretProjection, SecretVolumeSource, ServiceAccountTokenProjection, StorageOSVolumeSource,
  TypedObjectReference, VolumeProjection, VolumeResourceRequirements, VsphereVirtualDiskVolumeSource,
} from '../api/core/v1/types.js';
