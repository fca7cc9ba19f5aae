#ifndef RICHPUSH_CVIPS_H
#define RICHPUSH_CVIPS_H

// A thin shim over libvips (Debian: libvips-dev), for the provider-side media optimiser
// (RichPushMedia). libvips' calls are variadic (NULL-terminated option lists) and cannot be
// called from Swift; these wrappers fix the options per call site.

#include <vips/vips.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
// glibc's GNU extensions (declared only under _GNU_SOURCE, which Swift's Glibc module does not
// define): the media worker pool starts workers with every descriptor past 2 closed.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int pipe2(int fds[2], int flags);
static inline int richpush_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
static inline int richpush_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
#endif

// Starts libvips once per process and sets the loader policy for hostile input:
// every loader libvips marks untrusted (ImageMagick, PDF, Analyze, FITS, Matlab, CSV, raw…)
// is blocked, then JPEG XL (libjxl) is opened again; SVG (librsvg) only when `allow_svg`
// (librsvg 2.54 aborts the process on some filters, and rendering has no time bound);
// ImageMagick (BMP) only when `allow_imagemagick`. `concurrency` > 0 sets libvips' worker
// threads (1 in a media worker process: the pool of processes is the parallelism).
// The operation cache is off: every input is new, and cached images would hold memory.
// Returns 0, or -1 with the reason in vips_error_buffer().
static inline int richpush_vips_start(const char *argv0, int allow_imagemagick, int allow_svg, int concurrency) {
    if (VIPS_INIT(argv0)) return -1;
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoadSvg", allow_svg ? FALSE : TRUE);
    vips_operation_block_set("VipsForeignLoadJxl", FALSE);
    if (allow_imagemagick) vips_operation_block_set("VipsForeignLoadMagick", FALSE);
    if (concurrency > 0) vips_concurrency_set(concurrency);
    vips_cache_set_max(0);
    return 0;
}

// What the header of an image says (no pixel decoded).
typedef struct {
    int width;
    int height;
    int pages;
    int bands;
    // Bytes per band sample (1 for 8-bit, 2 for 16-bit, 4 for float).
    int sample_bytes;
    // PNG Adam7 interlace ("interlaced"): libpng holds the whole image to decode it.
    int interlaced;
    // Progressive JPEG ("jpeg-multiscan"): libjpeg holds every coefficient of the image.
    int multiscan;
    // The loader's nickname, e.g. "jpegload" ("vips-loader").
    char loader[64];
} richpush_vips_info;

static inline int richpush_vips_fill_info(VipsImage *image, richpush_vips_info *info) {
    info->width = vips_image_get_width(image);
    info->height = vips_image_get_height(image);
    info->pages = vips_image_get_n_pages(image);
    info->bands = vips_image_get_bands(image);
    info->sample_bytes = (int)vips_format_sizeof(vips_image_get_format(image));
    int flag = 0;
    info->interlaced = vips_image_get_typeof(image, "interlaced") != 0 && vips_image_get_int(image, "interlaced", &flag) == 0 && flag != 0;
    flag = 0;
    info->multiscan = vips_image_get_typeof(image, "jpeg-multiscan") != 0 && vips_image_get_int(image, "jpeg-multiscan", &flag) == 0 && flag != 0;
    const char *loader = NULL;
    info->loader[0] = 0;
    if (vips_image_get_typeof(image, "vips-loader") != 0 && vips_image_get_string(image, "vips-loader", &loader) == 0 && loader != NULL)
        g_strlcpy(info->loader, loader, sizeof info->loader);
    return 0;
}

// The header of the file at `path`. Returns 0, or -1 with vips_error_buffer().
static inline int richpush_vips_info_file(const char *path, int fail_on, richpush_vips_info *info) {
    VipsImage *image = vips_image_new_from_file(path, "fail_on", fail_on, NULL);
    if (image == NULL) return -1;
    richpush_vips_fill_info(image, info);
    g_object_unref(image);
    return 0;
}

// The header of an image in memory (an SVG's embedded picture). Returns 0, or -1.
static inline int richpush_vips_info_buffer(const void *buffer, size_t length, richpush_vips_info *info) {
    VipsImage *image = vips_image_new_from_buffer(buffer, length, "", NULL);
    if (image == NULL) return -1;
    richpush_vips_fill_info(image, info);
    g_object_unref(image);
    return 0;
}

// Alpha flattened on white, converted to sRGB, kept in memory; consumes `thumb`.
static inline VipsImage *richpush_vips_finish(VipsImage *thumb) {
    VipsImage *flat = NULL, *srgb = NULL, *memory = NULL;
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

// Shrinks `path` (first page/frame) to fit `side` × `side` (never enlarged), shrink-on-load
// (JPEG DCT scaling, WebP scale on load; PNG/TIFF streamed), EXIF orientation applied,
// converted to sRGB (ICC profile if any), alpha flattened on white, kept in memory.
// Returns the image (unref with richpush_vips_unref), or NULL with vips_error_buffer().
static inline VipsImage *richpush_vips_thumbnail(const char *path, int side, int fail_on) {
    VipsImage *thumb = NULL;
    if (vips_thumbnail(path, &thumb, side, "height", side, "size", VIPS_SIZE_DOWN, "export_profile", "srgb",
                       "fail_on", fail_on, NULL))
        return NULL;
    return richpush_vips_finish(thumb);
}

// As richpush_vips_thumbnail, from bytes in memory: an SVG is rendered from a buffer, so
// librsvg has no base file and loads no other file it names. `buffer` must stay valid
// until this returns (the result is copied to memory).
static inline VipsImage *richpush_vips_thumbnail_buffer(const void *buffer, size_t length, int side, int fail_on) {
    VipsImage *thumb = NULL;
    if (vips_thumbnail_buffer((void *)buffer, length, &thumb, side, "height", side, "size", VIPS_SIZE_DOWN,
                              "export_profile", "srgb", "fail_on", fail_on, NULL))
        return NULL;
    return richpush_vips_finish(thumb);
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

// MARK: media worker processes (RichPushMedia's MediaWorker)

// Bounds the calling process: address space (RLIMIT_AS, soft and hard), the size of a file it
// writes (RLIMIT_FSIZE), open files (RLIMIT_NOFILE), no core dumps (RLIMIT_CORE 0); no new
// privileges through exec. Returns 0, or -1.
static inline int richpush_worker_bound(unsigned long long address_space, unsigned long long file_size, unsigned long long open_files) {
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = 0;
    if (setrlimit(RLIMIT_CORE, &limit)) return -1;
    limit.rlim_cur = limit.rlim_max = (rlim_t)open_files;
    if (setrlimit(RLIMIT_NOFILE, &limit)) return -1;
    limit.rlim_cur = limit.rlim_max = (rlim_t)file_size;
    if (setrlimit(RLIMIT_FSIZE, &limit)) return -1;
    limit.rlim_cur = limit.rlim_max = (rlim_t)address_space;
    if (setrlimit(RLIMIT_AS, &limit)) return -1;
#ifdef __linux__
    (void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
#endif
    return 0;
}

// Lets the calling process use `seconds` more CPU time from now (RLIMIT_CPU's soft limit: past
// it the kernel sends SIGXCPU, which ends the process). Returns 0, or -1.
static inline int richpush_worker_cpu_budget(unsigned long long seconds) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage)) return -1;
    struct rlimit limit;
    if (getrlimit(RLIMIT_CPU, &limit)) return -1;
    unsigned long long used = (unsigned long long)usage.ru_utime.tv_sec + (unsigned long long)usage.ru_stime.tv_sec + 1;
    rlim_t soft = (rlim_t)(used + seconds);
    if (limit.rlim_max != RLIM_INFINITY && soft > limit.rlim_max) soft = limit.rlim_max;
    limit.rlim_cur = soft;
    return setrlimit(RLIMIT_CPU, &limit);
}

// The calling process's peak resident memory so far, in bytes.
static inline long long richpush_worker_peak_rss(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage)) return 0;
    return (long long)usage.ru_maxrss * 1024;
}

#endif
