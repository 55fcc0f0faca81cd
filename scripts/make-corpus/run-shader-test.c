/*
 * run-shader-test: compile the GLSL programs of piglit .shader_test files
 * through EGL on GBM, no draws, and print the compiler's statistics lines.
 *
 * Written for eubatch's corpus maker (scripts/make-corpus/make-corpus.sh).
 * It does what shader-db's `run` does for one test at a time, single-threaded:
 *
 *   - opens /dev/dri/renderD128 (under the Intel no-op DRM shim, a fake
 *     device), creates a GBM device and an EGL display on it
 *     (EGL_MESA_platform_gbm), and three surfaceless contexts: OpenGL ES 2
 *     (Mesa gives the highest ES version it has), OpenGL 3.2 core (3.1 if
 *     that fails; Mesa gives its highest core version) and OpenGL
 *     compatibility;
 *   - registers a KHR_debug callback on each, enabled only for
 *     GL_DEBUG_SOURCE_SHADER_COMPILER / GL_DEBUG_TYPE_OTHER /
 *     GL_DEBUG_SEVERITY_NOTIFICATION, synchronous, which prints every message
 *     as "NAME - MESSAGE" on stdout: with Mesa's Intel drivers these are the
 *     back end's statistics lines ("VS SIMD8 shader: 38 inst, 0 loops, ...",
 *     brw_fs_generator / brw_vec4_generator's shader_debug_log), which is
 *     shader-db's line format;
 *   - for every file named on the command line: parses [require] and the
 *     shader sections, skips the test (SKIP: on stderr) if the context lacks
 *     the GLSL version or an extension it requires, picks the context (ES for
 *     "GLSL ES >=", compatibility for GLSL <= 1.30, core above), creates one
 *     program, compiles and attaches every shader, marks it separable if it
 *     has only one shader or asks for "SSO ENABLED", applies
 *     "BindAttribLoc NAME INDEX" lines, links it and deletes it.  ARB
 *     assembly programs ([vertex program], [fragment program]) are loaded
 *     with glProgramStringARB, as shader-db does;
 *   - prints "Thread 0 took S seconds and compiled N shaders (not including
 *     SIMD16) with C GL context switches" at the end, as shader-db does.
 *   - sets the environment shader-db's run sets: shader_precompile=true,
 *     allow_glsl_extension_directive_midshader=true,
 *     allow_glsl_builtin_variable_redeclaration=true, GALLIUM_THREAD=0,
 *     ST_DEBUG+=precompile, MESA_GLSL_CACHE_DISABLE=true.
 *
 * Where it departs from shader-db's run:
 *   - no libepoxy and no OpenMP: GL entry points come from eglGetProcAddress,
 *     and it is single-threaded (shader-db's `run -j1`);
 *   - [require] is read line by line: "GL >= x.y", "GL ES >= x.y",
 *     "GL CORE >= x.y", "GL COMPAT >= x.y" (compatibility context), "GLSL >=",
 *     "GLSL ES >=", GL_* extensions, "SSO ENABLED" in any order (shader-db
 *     expects "GL >=" then "GLSL >=" first); a test without a GLSL line is
 *     GLSL 1.10, as in piglit's shader_runner;
 *   - piglit's sections that are not shaders ([vertex data], [test],
 *     [vertex shader file], ...) end the shader before them and are ignored
 *     (shader-db refuses any section it does not know, and stops at [test]);
 *   - "[vertex shader passthrough]" is given piglit shader_runner's
 *     pass-through vertex shader ("#version V", "in vec4 piglit_vertex;",
 *     gl_Position = piglit_vertex; "attribute" below GLSL 1.30, and
 *     "#version V es" for GLSL ES 3.00 and above) — shader-db's run has no
 *     such section;
 *   - a GLSL shader without a "#version" line is given "#version V" (V from
 *     [require]'s GLSL line, " es" for GLSL ES 3.00 and above), as piglit's
 *     shader_runner does (shader-db's run compiles the text as it is);
 *   - programs are not labelled (shader-db's run calls glObjectLabel with the
 *     file's name): Mesa then calls them "unnamed" in its "Native code for"
 *     lines, as in the asm.txt files of the shared corpora;
 *   - the thread time is computed with 1e-9 per nanosecond (shader-db
 *     multiplies by 10e-9).
 *
 * Usage: run-shader-test FILE.shader_test...   (exit status 0, or 1 if a
 * shader failed to compile or a program failed to link, 2 on setup errors)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h> /* typedefs only: GL_GLEXT_PROTOTYPES is not set */
#include <gbm.h>

/* ARB_vertex_program / ARB_fragment_program, not in glcorearb.h */
#define GL_VERTEX_PROGRAM_ARB 0x8620
#define GL_FRAGMENT_PROGRAM_ARB 0x8804
#define GL_PROGRAM_FORMAT_ASCII_ARB 0x8875
typedef void(APIENTRY *PFNGLGENPROGRAMSARBPROC)(GLsizei n, GLuint *programs);
typedef void(APIENTRY *PFNGLBINDPROGRAMARBPROC)(GLenum target,
                                                   GLuint program);
typedef void(APIENTRY *PFNGLPROGRAMSTRINGARBPROC)(GLenum target,
                                                     GLenum format,
                                                     GLsizei len,
                                                     const void *string);
typedef void(APIENTRY *PFNGLDELETEPROGRAMSARBPROC)(GLsizei n,
                                                      const GLuint *programs);
#ifndef GL_EXTENSIONS
#define GL_EXTENSIONS 0x1F03
#endif
/* GL entry points, looked up with eglGetProcAddress. */
#define GL_FUNCS(X)                                                          \
   X(PFNGLGETSTRINGPROC, GetString)                                          \
   X(PFNGLGETSTRINGIPROC, GetStringi)                                        \
   X(PFNGLGETINTEGERVPROC, GetIntegerv)                                      \
   X(PFNGLGETERRORPROC, GetError)                                            \
   X(PFNGLENABLEPROC, Enable)                                                \
   X(PFNGLDEBUGMESSAGECONTROLPROC, DebugMessageControl)                      \
   X(PFNGLDEBUGMESSAGECALLBACKPROC, DebugMessageCallback)                    \
   X(PFNGLCREATEPROGRAMPROC, CreateProgram)                                  \
   X(PFNGLPROGRAMPARAMETERIPROC, ProgramParameteri)                          \
   X(PFNGLCREATESHADERPROC, CreateShader)                                    \
   X(PFNGLSHADERSOURCEPROC, ShaderSource)                                    \
   X(PFNGLCOMPILESHADERPROC, CompileShader)                                  \
   X(PFNGLGETSHADERIVPROC, GetShaderiv)                                      \
   X(PFNGLGETSHADERINFOLOGPROC, GetShaderInfoLog)                            \
   X(PFNGLATTACHSHADERPROC, AttachShader)                                    \
   X(PFNGLDELETESHADERPROC, DeleteShader)                                    \
   X(PFNGLBINDATTRIBLOCATIONPROC, BindAttribLocation)                        \
   X(PFNGLLINKPROGRAMPROC, LinkProgram)                                      \
   X(PFNGLGETPROGRAMIVPROC, GetProgramiv)                                    \
   X(PFNGLGETPROGRAMINFOLOGPROC, GetProgramInfoLog)                          \
   X(PFNGLDELETEPROGRAMPROC, DeleteProgram)                                  \
   X(PFNGLGENPROGRAMSARBPROC, GenProgramsARB)                                \
   X(PFNGLBINDPROGRAMARBPROC, BindProgramARB)                                \
   X(PFNGLPROGRAMSTRINGARBPROC, ProgramStringARB)                            \
   X(PFNGLDELETEPROGRAMSARBPROC, DeleteProgramsARB)

#define DECLARE(type, name) static type gl##name;
GL_FUNCS(DECLARE)

static void
load_gl(void)
{
#define LOAD(type, name) gl##name = (type)eglGetProcAddress("gl" #name);
   GL_FUNCS(LOAD)
}

enum ctx_type { CTX_NONE, CTX_CORE, CTX_COMPAT, CTX_ES };

struct ctx_info {
   EGLContext ctx;
   char *extensions; /* space-separated, with a space at both ends */
   int glsl_version; /* 150 for 1.50; ES versions as 100, 300, 310, 320 */
};

static struct ctx_info core, compat, es;
static const char *current_name;

static void APIENTRY
callback(GLenum source, GLenum type, GLuint id, GLenum severity,
         GLsizei length, const GLchar *message, const void *user)
{
   (void)source; (void)type; (void)id; (void)severity; (void)length;
   (void)user;
   printf("%s - %s\n", current_name, message);
}

static int
parse_version(const char *s)
{
   /* "4.30" -> 430, "1.10" -> 110, "3.2" -> 320 */
   int major = 0, minor = 0;
   while (*s == ' ')
      s++;
   major = (int)strtol(s, (char **)&s, 10);
   if (*s == '.') {
      s++;
      int digits = 0;
      while (isdigit((unsigned char)s[digits]))
         digits++;
      minor = (int)strtol(s, NULL, 10);
      if (digits == 1)
         minor *= 10;
   }
   return major * 100 + minor;
}

static void
query_context(struct ctx_info *info)
{
   size_t cap = 1 << 16, len = 0;
   info->extensions = malloc(cap);
   info->extensions[len++] = ' ';
   GLint n = 0;
   const char *all = NULL;
   if (glGetStringi) {
      glGetIntegerv(GL_NUM_EXTENSIONS, &n);
      glGetError();
   }
   if (n == 0)
      all = (const char *)glGetString(GL_EXTENSIONS);
   for (int i = 0; all ? i < 1 : i < n; i++) {
      const char *e = all ? all : (const char *)glGetStringi(GL_EXTENSIONS, i);
      if (!e)
         continue;
      size_t l = strlen(e);
      while (len + l + 2 >= cap)
         info->extensions = realloc(info->extensions, cap *= 2);
      memcpy(info->extensions + len, e, l);
      len += l;
      info->extensions[len++] = ' ';
   }
   info->extensions[len] = '\0';
   const char *v = (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION);
   info->glsl_version = 0;
   if (v) {
      const char *es_prefix = "OpenGL ES GLSL ES ";
      if (strncmp(v, es_prefix, strlen(es_prefix)) == 0)
         v += strlen(es_prefix);
      info->glsl_version = parse_version(v);
   }
}

static bool
has_extension(const struct ctx_info *info, const char *name, size_t len)
{
   char buf[256];
   if (len + 3 > sizeof(buf))
      return false;
   buf[0] = ' ';
   memcpy(buf + 1, name, len);
   buf[len + 1] = ' ';
   buf[len + 2] = '\0';
   return strstr(info->extensions, buf) != NULL;
}

static void
enable_debug(void)
{
   glEnable(GL_DEBUG_OUTPUT);
   glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
   glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, NULL,
                         GL_FALSE);
   glDebugMessageControl(GL_DEBUG_SOURCE_SHADER_COMPILER, GL_DEBUG_TYPE_OTHER,
                         GL_DEBUG_SEVERITY_NOTIFICATION, 0, NULL, GL_TRUE);
   glDebugMessageCallback(callback, NULL);
}

static EGLContext
create_context(EGLDisplay dpy, EGLConfig cfg, enum ctx_type type)
{
   static const EGLint core_attribs[] = {
      EGL_CONTEXT_OPENGL_PROFILE_MASK_KHR,
      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT_KHR,
      EGL_CONTEXT_MAJOR_VERSION_KHR, 3,
      EGL_CONTEXT_MINOR_VERSION_KHR, 2,
      EGL_NONE,
   };
   static const EGLint core31_attribs[] = {
      EGL_CONTEXT_MAJOR_VERSION_KHR, 3,
      EGL_CONTEXT_MINOR_VERSION_KHR, 1,
      EGL_NONE,
   };
   static const EGLint es_attribs[] = { EGL_CONTEXT_CLIENT_VERSION, 2,
                                        EGL_NONE };
   EGLContext ctx;
   switch (type) {
   case CTX_CORE:
      eglBindAPI(EGL_OPENGL_API);
      ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, core_attribs);
      if (ctx == EGL_NO_CONTEXT)
         ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, core31_attribs);
      return ctx;
   case CTX_COMPAT:
      eglBindAPI(EGL_OPENGL_API);
      return eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, &core_attribs[6]);
   case CTX_ES:
      eglBindAPI(EGL_OPENGL_ES_API);
      return eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, es_attribs);
   default:
      return EGL_NO_CONTEXT;
   }
}

static bool
make_current(EGLDisplay dpy, enum ctx_type type)
{
   struct ctx_info *info =
      type == CTX_CORE ? &core : type == CTX_ES ? &es : &compat;
   if (info->ctx == EGL_NO_CONTEXT)
      return false;
   eglBindAPI(type == CTX_ES ? EGL_OPENGL_ES_API : EGL_OPENGL_API);
   return eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, info->ctx);
}

/* A shader section of a test. */
struct shader {
   GLenum type;
   bool arb;  /* an ARB assembly program */
   char *text;
   int length;
};

struct binding {
   char name[128];
   int index;
};

static char *
read_file(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   char *buf = malloc(n + 1);
   if (fread(buf, 1, n, f) != (size_t)n) {
      fclose(f);
      free(buf);
      return NULL;
   }
   buf[n] = '\0';
   fclose(f);
   *size = n;
   return buf;
}

static const struct {
   const char *section;
   GLenum type;
   bool arb;
} shader_sections[] = {
   { "[vertex shader]", GL_VERTEX_SHADER, false },
   { "[fragment shader]", GL_FRAGMENT_SHADER, false },
   { "[geometry shader]", GL_GEOMETRY_SHADER, false },
   { "[tessellation control shader]", GL_TESS_CONTROL_SHADER, false },
   { "[tessellation evaluation shader]", GL_TESS_EVALUATION_SHADER, false },
   { "[compute shader]", GL_COMPUTE_SHADER, false },
   { "[vertex program]", GL_VERTEX_PROGRAM_ARB, true },
   { "[fragment program]", GL_FRAGMENT_PROGRAM_ARB, true },
};

/* Returns 0 if run, 1 on a compile or link failure, -1 if skipped. */
static int
run_test(EGLDisplay dpy, const char *path, enum ctx_type *current,
         unsigned *compiled, unsigned *switches)
{
   size_t size;
   char *text = read_file(path, &size);
   if (!text) {
      fprintf(stderr, "ERROR: cannot read %s\n", path);
      return 1;
   }

   struct shader shaders[16];
   unsigned num_shaders = 0;
   struct binding bindings[32];
   unsigned num_bindings = 0;
   int glsl = 110;
   bool glsl_es = false, want_compat = false, sso = false, passthrough = false;
   bool in_require = false, have_glsl_line = false;
   char *extensions[64];
   size_t ext_len[64];
   unsigned num_ext = 0;

   /* Walk the lines; a line starting with '[' starts a section. */
   char *line = text;
   struct shader *open_shader = NULL;
   while (line < text + size) {
      char *nl = memchr(line, '\n', text + size - line);
      char *end = nl ? nl : text + size;
      char *next = nl ? nl + 1 : text + size;
      if (line[0] == '[') {
         if (open_shader) {
            open_shader->length = (int)(line - open_shader->text);
            open_shader = NULL;
         }
         in_require = false;
         size_t l = end - line;
         while (l > 0 && (line[l - 1] == ' ' || line[l - 1] == '\r' ||
                          line[l - 1] == '\t'))
            l--;
         if (l == 9 && memcmp(line, "[require]", 9) == 0) {
            in_require = true;
         } else if (l == strlen("[vertex shader passthrough]") &&
                    memcmp(line, "[vertex shader passthrough]", l) == 0) {
            passthrough = true;
         } else {
            for (unsigned i = 0;
                 i < sizeof(shader_sections) / sizeof(shader_sections[0]);
                 i++) {
               if (l == strlen(shader_sections[i].section) &&
                   memcmp(line, shader_sections[i].section, l) == 0) {
                  if (num_shaders == 16)
                     break;
                  open_shader = &shaders[num_shaders++];
                  open_shader->type = shader_sections[i].type;
                  open_shader->arb = shader_sections[i].arb;
                  open_shader->text = next;
                  open_shader->length = 0;
               }
            }
         }
      } else if (in_require) {
         char *s = line;
         while (s < end && (*s == ' ' || *s == '\t'))
            s++;
         size_t l = end - s;
         while (l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\r'))
            l--;
         if (l >= 10 && memcmp(s, "GLSL ES >=", 10) == 0) {
            glsl = parse_version(s + 10);
            glsl_es = true;
            have_glsl_line = true;
         } else if (l >= 7 && memcmp(s, "GLSL >=", 7) == 0) {
            glsl = parse_version(s + 7);
            have_glsl_line = true;
         } else if (l >= 9 && memcmp(s, "GL COMPAT", 9) == 0) {
            want_compat = true;
         } else if (l >= 3 && memcmp(s, "GL_", 3) == 0) {
            size_t w = 0;
            while (w < l && !isspace((unsigned char)s[w]))
               w++;
            if (num_ext < 64) {
               extensions[num_ext] = s;
               ext_len[num_ext++] = w;
            }
         } else if (l >= 11 && memcmp(s, "SSO ENABLED", 11) == 0) {
            sso = true;
         } else if (l >= 13 && memcmp(s, "BindAttribLoc", 13) == 0 &&
                    num_bindings < 32) {
            char name[128];
            int index;
            char tmp[256];
            size_t tl = l < 255 ? l : 255;
            memcpy(tmp, s, tl);
            tmp[tl] = '\0';
            if (sscanf(tmp, "BindAttribLoc %127s %d", name, &index) == 2) {
               strcpy(bindings[num_bindings].name, name);
               bindings[num_bindings++].index = index;
               printf("LOG: glBindAttribLocation(prog, %d, \"%s\") will be "
                      "executed before linking\n", index, name);
            }
         }
      }
      line = next;
   }
   if (open_shader)
      open_shader->length = (int)(text + size - open_shader->text);

   enum ctx_type type;
   struct ctx_info *info;
   if (glsl_es) {
      type = CTX_ES;
      info = &es;
   } else if (glsl <= 130 || want_compat) {
      type = CTX_COMPAT;
      info = &compat;
   } else {
      type = CTX_CORE;
      info = &core;
   }
   if (info->ctx == EGL_NO_CONTEXT) {
      fprintf(stderr, "SKIP: %s needs a context this driver did not give\n",
              path);
      free(text);
      return -1;
   }
   if (glsl > info->glsl_version) {
      fprintf(stderr, "SKIP: %s requires GLSL %d\n", path, glsl);
      free(text);
      return -1;
   }
   for (unsigned i = 0; i < num_ext; i++) {
      if (!has_extension(info, extensions[i], ext_len[i])) {
         fprintf(stderr, "SKIP: %s requires unavailable extension %.*s\n",
                 path, (int)ext_len[i], extensions[i]);
         free(text);
         return -1;
      }
   }

   char passthrough_text[256];
   if (passthrough && num_shaders < 16) {
      if (glsl_es && glsl >= 300)
         snprintf(passthrough_text, sizeof(passthrough_text),
                  "#version %d es\nin vec4 piglit_vertex;\n"
                  "void main() { gl_Position = piglit_vertex; }\n", glsl);
      else
         snprintf(passthrough_text, sizeof(passthrough_text),
                  "#version %d\n%s vec4 piglit_vertex;\n"
                  "void main() { gl_Position = piglit_vertex; }\n", glsl,
                  glsl < 130 ? "attribute" : "in");
      struct shader *s = &shaders[num_shaders++];
      s->type = GL_VERTEX_SHADER;
      s->arb = false;
      s->text = passthrough_text;
      s->length = (int)strlen(passthrough_text);
   }

   if (num_shaders == 0) {
      fprintf(stderr, "SKIP: %s has no shader\n", path);
      free(text);
      return -1;
   }

   if (*current != type) {
      (*switches)++;
      if (!make_current(dpy, type)) {
         fprintf(stderr, "ERROR: eglMakeCurrent() failed\n");
         free(text);
         return 1;
      }
      *current = type;
   }

   /* As piglit's shader_runner does: a GLSL shader without a #version line is given the
    * version of [require]'s GLSL line. */
   static char *with_version[16];
   if (have_glsl_line) {
      for (unsigned i = 0; i < num_shaders; i++) {
         const char *t = shaders[i].text;
         int n = shaders[i].length;
         while (n > 0 && isspace((unsigned char)*t))
            t++, n--;
         if (shaders[i].arb || (n >= 8 && memcmp(t, "#version", 8) == 0))
            continue;
         char head[32];
         int hl = snprintf(head, sizeof(head), "#version %d%s\n", glsl,
                           glsl_es && glsl >= 300 ? " es" : "");
         free(with_version[i]);
         with_version[i] = malloc(hl + shaders[i].length + 1);
         memcpy(with_version[i], head, hl);
         memcpy(with_version[i] + hl, shaders[i].text, shaders[i].length);
         shaders[i].text = with_version[i];
         shaders[i].length += hl;
      }
   }

   int failed = 0;
   current_name = path;
   if (!shaders[0].arb) {
      GLuint prog = glCreateProgram();
      GLint param;
      if (num_shaders == 1 || sso)
         glProgramParameteri(prog, GL_PROGRAM_SEPARABLE, GL_TRUE);
      for (unsigned i = 0; i < num_shaders; i++) {
         if (shaders[i].arb)
            continue;
         GLuint s = glCreateShader(shaders[i].type);
         const GLchar *src = shaders[i].text;
         glShaderSource(s, 1, &src, &shaders[i].length);
         glCompileShader(s);
         glGetShaderiv(s, GL_COMPILE_STATUS, &param);
         if (!param) {
            GLchar log[4096];
            GLsizei length = 0;
            glGetShaderInfoLog(s, sizeof(log), &length, log);
            fprintf(stderr, "ERROR: %s failed to compile:\n%s\n", path, log);
            failed = 1;
         }
         glAttachShader(prog, s);
         glDeleteShader(s);
      }
      for (unsigned i = 0; i < num_bindings; i++)
         glBindAttribLocation(prog, bindings[i].index, bindings[i].name);
      glLinkProgram(prog);
      glGetProgramiv(prog, GL_LINK_STATUS, &param);
      if (!param) {
         GLchar log[4096];
         GLsizei length = 0;
         glGetProgramInfoLog(prog, sizeof(log), &length, log);
         fprintf(stderr, "ERROR: failed to link program:\n%s\n", log);
         failed = 1;
      }
      glDeleteProgram(prog);
   } else {
      for (unsigned i = 0; i < num_shaders; i++) {
         GLuint prog;
         glGenProgramsARB(1, &prog);
         glBindProgramARB(shaders[i].type, prog);
         glProgramStringARB(shaders[i].type, GL_PROGRAM_FORMAT_ASCII_ARB,
                            shaders[i].length, shaders[i].text);
         glDeleteProgramsARB(1, &prog);
         if (glGetError() == GL_INVALID_OPERATION) {
            fprintf(stderr, "ERROR: %s failed to compile\n", path);
            failed = 1;
         }
      }
   }
   *compiled += num_shaders;
   free(text);
   return failed;
}

int
main(int argc, char **argv)
{
   if (argc < 2) {
      fprintf(stderr, "usage: %s FILE.shader_test...\n", argv[0]);
      return 2;
   }
   setenv("allow_glsl_extension_directive_midshader", "true", 1);
   setenv("allow_glsl_builtin_variable_redeclaration", "true", 1);
   setenv("shader_precompile", "true", 1);
   setenv("MESA_GLSL_CACHE_DISABLE", "true", 1);
   setenv("GALLIUM_THREAD", "0", 1);
   const char *st = getenv("ST_DEBUG");
   if (st) {
      char *v;
      if (asprintf(&v, "%s,precompile", st) > 0)
         setenv("ST_DEBUG", v, 1);
   } else {
      setenv("ST_DEBUG", "precompile", 1);
   }

   int fd = open("/dev/dri/renderD128", O_RDWR);
   if (fd < 0) {
      fprintf(stderr, "ERROR: Couldn't open /dev/dri/renderD128\n");
      return 2;
   }
   struct gbm_device *gbm = gbm_create_device(fd);
   if (!gbm) {
      fprintf(stderr, "ERROR: Couldn't create gbm device\n");
      return 2;
   }
   PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress(
         "eglGetPlatformDisplayEXT");
   if (!get_platform_display) {
      fprintf(stderr, "ERROR: Missing eglGetPlatformDisplayEXT\n");
      return 2;
   }
   EGLDisplay dpy = get_platform_display(EGL_PLATFORM_GBM_MESA, gbm, NULL);
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) {
      fprintf(stderr, "ERROR: eglInitialize() failed (0x%x)\n", eglGetError());
      return 2;
   }
   const char *egl_ext = eglQueryString(dpy, EGL_EXTENSIONS);
   if (!egl_ext || !strstr(egl_ext, "EGL_KHR_create_context") ||
       !strstr(egl_ext, "EGL_KHR_surfaceless_context")) {
      fprintf(stderr, "ERROR: Missing EGL_KHR_create_context or "
                      "EGL_KHR_surfaceless_context\n");
      return 2;
   }
   static const EGLint config_attribs[] = { EGL_RENDERABLE_TYPE,
                                            EGL_OPENGL_BIT, EGL_NONE };
   EGLConfig cfg;
   EGLint count;
   if (!eglChooseConfig(dpy, config_attribs, &cfg, 1, &count) || count == 0) {
      fprintf(stderr, "ERROR: eglChooseConfig() failed\n");
      return 2;
   }

   load_gl();

   struct timespec start, end;
   clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);

   struct {
      struct ctx_info *info;
      enum ctx_type type;
   } kinds[] = { { &es, CTX_ES }, { &core, CTX_CORE }, { &compat, CTX_COMPAT } };
   for (unsigned i = 0; i < 3; i++) {
      kinds[i].info->ctx = create_context(dpy, cfg, kinds[i].type);
      kinds[i].info->extensions = (char *)" ";
      if (kinds[i].info->ctx != EGL_NO_CONTEXT &&
          make_current(dpy, kinds[i].type)) {
         query_context(kinds[i].info);
         enable_debug();
      } else {
         kinds[i].info->ctx = EGL_NO_CONTEXT;
      }
   }
   if (compat.ctx == EGL_NO_CONTEXT) {
      fprintf(stderr, "ERROR: eglCreateContext() failed\n");
      return 2;
   }
   enum ctx_type current = CTX_NONE;

   int status = 0;
   unsigned compiled = 0, switches = 0;
   for (int i = 1; i < argc; i++) {
      int r = run_test(dpy, argv[i], &current, &compiled, &switches);
      if (r > 0)
         status = 1;
   }

   clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
   printf("Thread 0 took %.2lf seconds and compiled %u shaders "
          "(not including SIMD16) with %u GL context switches\n",
          (end.tv_sec - start.tv_sec) + 1e-9 * (end.tv_nsec - start.tv_nsec),
          compiled, switches);
   fflush(stdout);

   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   if (compat.ctx != EGL_NO_CONTEXT)
      eglDestroyContext(dpy, compat.ctx);
   if (core.ctx != EGL_NO_CONTEXT)
      eglDestroyContext(dpy, core.ctx);
   if (es.ctx != EGL_NO_CONTEXT)
      eglDestroyContext(dpy, es.ctx);
   eglTerminate(dpy);
   gbm_device_destroy(gbm);
   close(fd);
   return status;
}
