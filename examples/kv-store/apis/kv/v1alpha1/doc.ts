/**
 * Package v1alpha1 contains the API of the kv-store example: a KVStore asks for a replicated key-value store.
 *
 * +groupName=kv.kubegen.io
 * +groupGoName=Kv
 */
export {};
