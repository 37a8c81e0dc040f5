// GF_EXPORT for the exports that follow, in region GF_REGION of gf_host_ops.h: defined and exported in
// unit GF_HOST_SHARD of GF_HOST_SHARDS when GF_REGION % GF_HOST_SHARDS == GF_HOST_SHARD (or in the one
// unit without GF_HOST_SHARD), else static inline, so never emitted there. No include guard: included
// at the start of every region.
#undef GF_EXPORT
#if !defined(GF_HOST_SHARD) || GF_REGION % GF_HOST_SHARDS == GF_HOST_SHARD
#define GF_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define GF_EXPORT static inline __attribute__((unused))
#endif
#undef GF_REGION
