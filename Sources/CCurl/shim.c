// Intentionally empty: every wrapper is static inline in include/CCurl.h.
