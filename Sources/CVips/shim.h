#ifndef RICHPUSH_CVIPS_H
#define RICHPUSH_CVIPS_H

// A thin shim over libvips (Debian: libvips-dev), for the provider-side media optimiser
// (RichPushMedia). libvips' calls are variadic (NULL-terminated option lists) and cannot be
// called from Swift; these wrappers fix the options per call site.

#include <vips/vips.h>

// Starts libvips once per process and sets the loader policy for hostile input:
// every loader libvips marks untrusted (ImageMagick, PDF, Analyze, FITS, Matlab, CSV, raw…)
// is blocked, then SVG (librsvg: no scripts, no external resources for a buffer/file
// without base) and JPEG XL (libjxl) are opened again; ImageMagick (BMP) only when asked.
// The operation cache is off: every input is new, and cached images would hold memory.
// Returns 0, or -1 with the reason in vips_error_buffer().
static inline int richpush_vips_start(const char *argv0, int allow_imagemagick) {
    if (VIPS_INIT(argv0)) return -1;
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoadSvg", FALSE);
    vips_operation_block_set("VipsForeignLoadJxl", FALSE);
    if (allow_imagemagick) vips_operation_block_set("VipsForeignLoadMagick", FALSE);
    vips_cache_set_max(0);
    return 0;
}

// The image's header only (no pixels decoded): width, height, pages (frames), and the
// loader's name (e.g. "jpegload"). Returns 0, or -1 with vips_error_buffer().
static inline int richpush_vips_header(const char *path, int fail_on, int *width, int *height, int *pages,
                                       char *loader, size_t loader_length) {
    const char *name = vips_foreign_find_load(path);
    if (name == NULL) return -1;
    if (loader != NULL && loader_length > 0) g_strlcpy(loader, name, loader_length);
    VipsImage *image = vips_image_new_from_file(path, "fail_on", fail_on, NULL);
    if (image == NULL) return -1;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    *pages = vips_image_get_n_pages(image);
    g_object_unref(image);
    return 0;
}

// Shrinks `path` (first page/frame) to fit `side` × `side` (never enlarged), shrink-on-load
// (JPEG DCT scaling, WebP/SVG scale on load; PNG/TIFF streamed), EXIF orientation applied,
// converted to sRGB (ICC profile if any), alpha flattened on white, kept in memory.
// Returns the image (unref with richpush_vips_unref), or NULL with vips_error_buffer().
static inline VipsImage *richpush_vips_thumbnail(const char *path, int side, int fail_on) {
    VipsImage *thumb = NULL, *flat = NULL, *srgb = NULL, *memory = NULL;
    if (vips_thumbnail(path, &thumb, side, "height", side, "size", VIPS_SIZE_DOWN, "export_profile", "srgb",
                       "fail_on", fail_on, NULL))
        return NULL;
    if (vips_image_hasalpha(thumb)) {
        double white[3] = {255.0, 255.0, 255.0};
        VipsArrayDouble *background = vips_array_double_new(white, 3);
        int failed = vips_flatten(thumb, &flat, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
        g_object_unref(thumb);
        if (failed) return NULL;
    } else {
        flat = thumb;
    }
    int failed = vips_colourspace(flat, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(flat);
    if (failed) return NULL;
    memory = vips_image_copy_memory(srgb);
    g_object_unref(srgb);
    return memory;
}

// Encodes `image` as baseline JPEG at `quality` (1…100), metadata stripped, Huffman tables
// optimised. Returns 0 with *buffer (free with g_free) and *length, or -1.
static inline int richpush_vips_jpeg(VipsImage *image, int quality, void **buffer, size_t *length) {
    return vips_jpegsave_buffer(image, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

// `image` scaled by `scale` (< 1: smaller; Lanczos 3), kept in memory. NULL on error.
static inline VipsImage *richpush_vips_resize(VipsImage *image, double scale) {
    VipsImage *resized = NULL;
    if (vips_resize(image, &resized, scale, NULL)) return NULL;
    VipsImage *memory = vips_image_copy_memory(resized);
    g_object_unref(resized);
    return memory;
}

static inline int richpush_vips_width(VipsImage *image) { return vips_image_get_width(image); }
static inline int richpush_vips_height(VipsImage *image) { return vips_image_get_height(image); }
static inline void richpush_vips_unref(VipsImage *image) { if (image != NULL) g_object_unref(image); }
static inline void richpush_vips_free(void *buffer) { g_free(buffer); }

// The last error text (copied by the caller), then cleared.
static inline const char *richpush_vips_error(void) { return vips_error_buffer(); }
static inline void richpush_vips_error_clear(void) { vips_error_clear(); }
// The most memory libvips has tracked at once (pixel buffers), in bytes.
static inline size_t richpush_vips_memory_highwater(void) { return vips_tracked_get_mem_highwater(); }

#endif
