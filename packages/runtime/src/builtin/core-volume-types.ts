import type {
  V1AWSElasticBlockStoreVolumeSource, V1AzureDiskVolumeSource, V1AzureFileVolumeSource, V1CSIVolumeSource,
  V1CephFSVolumeSource, V1CinderVolumeSource, V1ClusterTrustBundleProjection, V1ConfigMapProjection,
  V1ConfigMapVolumeSource, V1DownwardAPIProjection, V1DownwardAPIVolumeFile, V1DownwardAPIVolumeSource,
  V1EmptyDirVolumeSource, V1EphemeralVolumeSource, V1FCVolumeSource, V1FlexVolumeSource, V1FlockerVolumeSource,
  V1GCEPersistentDiskVolumeSource, V1GitRepoVolumeSource, V1GlusterfsVolumeSource, V1HostPathVolumeSource,
  V1ISCSIVolumeSource, V1ImageVolumeSource, V1KeyToPath, V1NFSVolumeSource, V1PersistentVolumeClaimTemplate,
  V1PersistentVolumeClaimVolumeSource, V1PhotonPersistentDiskVolumeSource, V1PodCertificateProjection,
  V1PortworxVolumeSource, V1ProjectedVolumeSource, V1QuobyteVolumeSource, V1RBDVolumeSource, V1ScaleIOVolumeSource,
  V1SecretProjection, V1SecretVolumeSource, V1ServiceAccountTokenProjection, V1StorageOSVolumeSource,
  V1TypedObjectReference, V1VolumeProjection, V1VolumeResourceRequirements, V1VsphereVirtualDiskVolumeSource,
} from '@kubernetes/client-node';
import type { Wire } from './wire.js';

/*
 * The volume sources of core/v1 (a pod's `volumes[]`, a projected volume's `sources[]`, an ephemeral volume's claim
 * template) as plain JSON types from `@kubernetes/client-node`'s models, for CRDs that embed them (see
 * `core-types.ts`). `Volume` itself is in `core-types.ts`.
 */

/** core/v1 AWSElasticBlockStoreVolumeSource: an AWS EBS disk (deprecated in-tree volume). */
export type AWSElasticBlockStoreVolumeSource = Wire<V1AWSElasticBlockStoreVolumeSource>;
/** core/v1 AzureDiskVolumeSource: an Azure data disk (deprecated in-tree volume). */
export type AzureDiskVolumeSource = Wire<V1AzureDiskVolumeSource>;
/** core/v1 AzureFileVolumeSource: an Azure file share (deprecated in-tree volume). */
export type AzureFileVolumeSource = Wire<V1AzureFileVolumeSource>;
/** core/v1 CephFSVolumeSource: a Ceph filesystem mount. */
export type CephFSVolumeSource = Wire<V1CephFSVolumeSource>;
/** core/v1 CinderVolumeSource: an OpenStack Cinder volume (deprecated in-tree volume). */
export type CinderVolumeSource = Wire<V1CinderVolumeSource>;
/** core/v1 ConfigMapVolumeSource: a ConfigMap's keys as files. */
export type ConfigMapVolumeSource = Wire<V1ConfigMapVolumeSource>;
/** core/v1 KeyToPath: one key of a ConfigMap or Secret and the file path it is written to. */
export type KeyToPath = Wire<V1KeyToPath>;
/** core/v1 CSIVolumeSource: an ephemeral volume from a CSI driver. */
export type CSIVolumeSource = Wire<V1CSIVolumeSource>;
/** core/v1 DownwardAPIVolumeSource: pod fields and container resources as files. */
export type DownwardAPIVolumeSource = Wire<V1DownwardAPIVolumeSource>;
/** core/v1 DownwardAPIVolumeFile: one file of a downward API volume: a pod field or a container resource. */
export type DownwardAPIVolumeFile = Wire<V1DownwardAPIVolumeFile>;
/** core/v1 EmptyDirVolumeSource: an empty directory that lives as long as the pod. */
export type EmptyDirVolumeSource = Wire<V1EmptyDirVolumeSource>;
/** core/v1 EphemeralVolumeSource: a volume claimed for the pod's lifetime from a PersistentVolumeClaim template. */
export type EphemeralVolumeSource = Wire<V1EphemeralVolumeSource>;
/** core/v1 PersistentVolumeClaimTemplate: the metadata and spec of the claim an ephemeral volume creates. */
export type PersistentVolumeClaimTemplate = Wire<V1PersistentVolumeClaimTemplate>;
/** core/v1 TypedObjectReference: a typed reference to an object, possibly in another namespace. */
export type TypedObjectReference = Wire<V1TypedObjectReference>;
/** core/v1 VolumeResourceRequirements: the storage a claim requests and its limits (quantities as strings, e.g. `"10Gi"`). */
export type VolumeResourceRequirements = Wire<V1VolumeResourceRequirements>;
/** core/v1 FCVolumeSource: a Fibre Channel disk. */
export type FCVolumeSource = Wire<V1FCVolumeSource>;
/** core/v1 FlexVolumeSource: a volume from a FlexVolume driver (deprecated). */
export type FlexVolumeSource = Wire<V1FlexVolumeSource>;
/** core/v1 FlockerVolumeSource: a Flocker dataset (deprecated in-tree volume). */
export type FlockerVolumeSource = Wire<V1FlockerVolumeSource>;
/** core/v1 GCEPersistentDiskVolumeSource: a GCE persistent disk (deprecated in-tree volume). */
export type GCEPersistentDiskVolumeSource = Wire<V1GCEPersistentDiskVolumeSource>;
/** core/v1 GitRepoVolumeSource: a directory cloned from a git repository (deprecated). */
export type GitRepoVolumeSource = Wire<V1GitRepoVolumeSource>;
/** core/v1 GlusterfsVolumeSource: a Glusterfs mount (deprecated in-tree volume). */
export type GlusterfsVolumeSource = Wire<V1GlusterfsVolumeSource>;
/** core/v1 HostPathVolumeSource: a file or directory of the node. */
export type HostPathVolumeSource = Wire<V1HostPathVolumeSource>;
/** core/v1 ImageVolumeSource: an OCI image (or artifact) mounted as a volume. */
export type ImageVolumeSource = Wire<V1ImageVolumeSource>;
/** core/v1 ISCSIVolumeSource: an iSCSI disk. */
export type ISCSIVolumeSource = Wire<V1ISCSIVolumeSource>;
/** core/v1 NFSVolumeSource: an NFS export. */
export type NFSVolumeSource = Wire<V1NFSVolumeSource>;
/** core/v1 PersistentVolumeClaimVolumeSource: a PersistentVolumeClaim in the pod's namespace. */
export type PersistentVolumeClaimVolumeSource = Wire<V1PersistentVolumeClaimVolumeSource>;
/** core/v1 PhotonPersistentDiskVolumeSource: a Photon Controller disk (deprecated in-tree volume). */
export type PhotonPersistentDiskVolumeSource = Wire<V1PhotonPersistentDiskVolumeSource>;
/** core/v1 PortworxVolumeSource: a Portworx volume (deprecated in-tree volume). */
export type PortworxVolumeSource = Wire<V1PortworxVolumeSource>;
/** core/v1 ProjectedVolumeSource: several sources (Secrets, ConfigMaps, downward API, service account tokens, …) projected into one directory. */
export type ProjectedVolumeSource = Wire<V1ProjectedVolumeSource>;
/** core/v1 VolumeProjection: one source of a projected volume. */
export type VolumeProjection = Wire<V1VolumeProjection>;
/** core/v1 ClusterTrustBundleProjection: the certificates of ClusterTrustBundles written to a file of a projected volume. */
export type ClusterTrustBundleProjection = Wire<V1ClusterTrustBundleProjection>;
/** core/v1 ConfigMapProjection: a ConfigMap's keys as files of a projected volume. */
export type ConfigMapProjection = Wire<V1ConfigMapProjection>;
/** core/v1 DownwardAPIProjection: pod fields and container resources as files of a projected volume. */
export type DownwardAPIProjection = Wire<V1DownwardAPIProjection>;
/** core/v1 PodCertificateProjection: a pod certificate and its key written to files of a projected volume. */
export type PodCertificateProjection = Wire<V1PodCertificateProjection>;
/** core/v1 SecretProjection: a Secret's keys as files of a projected volume. */
export type SecretProjection = Wire<V1SecretProjection>;
/** core/v1 ServiceAccountTokenProjection: a service account token written to a file of a projected volume. */
export type ServiceAccountTokenProjection = Wire<V1ServiceAccountTokenProjection>;
/** core/v1 QuobyteVolumeSource: a Quobyte mount (deprecated in-tree volume). */
export type QuobyteVolumeSource = Wire<V1QuobyteVolumeSource>;
/** core/v1 RBDVolumeSource: a Rados block device (deprecated in-tree volume). */
export type RBDVolumeSource = Wire<V1RBDVolumeSource>;
/** core/v1 ScaleIOVolumeSource: a ScaleIO volume (deprecated in-tree volume). */
export type ScaleIOVolumeSource = Wire<V1ScaleIOVolumeSource>;
/** core/v1 SecretVolumeSource: a Secret's keys as files. */
export type SecretVolumeSource = Wire<V1SecretVolumeSource>;
/** core/v1 StorageOSVolumeSource: a StorageOS volume (deprecated in-tree volume). */
export type StorageOSVolumeSource = Wire<V1StorageOSVolumeSource>;
/** core/v1 VsphereVirtualDiskVolumeSource: a vSphere disk (deprecated in-tree volume). */
export type VsphereVirtualDiskVolumeSource = Wire<V1VsphereVirtualDiskVolumeSource>;
