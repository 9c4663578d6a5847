// Figure/ground segmentation graphs from the Weizmann Horse database (Borenstein & Ullman,
// ECCV 2002), built the way Appendix A of Shah, Kolmogorov & Lampert (CVPR 2015) describes
// HorseSeg: each grayscale image is over-segmented into superpixels (SLIC, Achanta et al.,
// PAMI 2012, or a regular grid), each superpixel gets a feature vector (intensity histogram,
// mean/std, position, gradient-orientation texture histogram, a coarse position one-hot, a
// constant), superpixels touching along a pixel border are joined by an edge (region-adjacency
// graph), and each superpixel takes the majority label of its pixels in the mask.
// Labels: binary (0 background, 1 horse) or `bands`: K = 2 * bands labels, pixel label
// fg * bands + (intensity band of the pixel), the multi-label variant for potts_expansion.
// Every image is one training example: the core caches the built graphs (key: image checksums +
// options) and splits the images into train and test by `test_fraction` and the repeat's seed.
#include <algorithm>
#include <csetjmp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>

// clang-format off
#include <jpeglib.h>  // needs <cstdio> first
// clang-format on

#include "dualgap/parse.hpp"
#include "dualgap/plugin.hpp"

namespace {

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> px;
};

// libjpeg reports fatal errors through error_exit; longjmp back instead of exit().
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

Image read_jpeg(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw dualgap::data_error(path, 0, "cannot open JPEG file");
  jpeg_decompress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = [](j_common_ptr c) {
    auto* e = reinterpret_cast<JpegError*>(c->err);
    (*c->err->format_message)(c, e->message);
    std::longjmp(e->jump, 1);
  };
  // A warning (level -1: "Premature end of JPEG file", corrupt data) means the decoder filled in
  // missing pixels: a truncated image is refused rather than used with made-up pixels.
  err.mgr.emit_message = [](j_common_ptr c, int level) {
    if (level >= 0) return;
    auto* e = reinterpret_cast<JpegError*>(c->err);
    (*c->err->format_message)(c, e->message);
    std::longjmp(e->jump, 1);
  };
  Image img;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    std::fclose(f);
    throw dualgap::data_error(path, 0, std::string("JPEG decoding failed: ") + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, f);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = JCS_GRAYSCALE;
  jpeg_start_decompress(&cinfo);
  img.w = static_cast<int>(cinfo.output_width);
  img.h = static_cast<int>(cinfo.output_height);
  img.px.resize(static_cast<std::size_t>(img.w) * img.h);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = img.px.data() + static_cast<std::size_t>(cinfo.output_scanline) * img.w;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  std::fclose(f);
  return img;
}

// Regular grid superpixels of side `cell` (last row/column cells absorb the remainder).
std::vector<int> grid_superpixels(const Image& im, int cell, int& count) {
  const int gx = std::max(1, im.w / cell), gy = std::max(1, im.h / cell);
  std::vector<int> lab(im.px.size());
  for (int y = 0; y < im.h; ++y)
    for (int x = 0; x < im.w; ++x)
      lab[static_cast<std::size_t>(y) * im.w + x] = std::min(y / cell, gy - 1) * gx + std::min(x / cell, gx - 1);
  count = gx * gy;
  return lab;
}

// SLIC on intensity (Achanta et al., PAMI 2012): k-means in (intensity, x, y) with search
// windows of 2S x 2S, distance (dI / m)^2 + (ds / S)^2, then connectivity enforcement that
// merges fragments smaller than S^2/4 into an adjacent segment.
std::vector<int> slic_superpixels(const Image& im, int S, double m, int iterations, int& count) {
  const int W = im.w, H = im.h;
  struct C { double i, x, y; };
  std::vector<C> c;
  for (int y = S / 2; y < H; y += S)
    for (int x = S / 2; x < W; x += S) c.push_back({double(im.px[std::size_t(y) * W + x]), double(x), double(y)});
  if (c.empty()) c.push_back({double(im.px[0]), 0, 0});
  std::vector<int> lab(im.px.size(), -1);
  std::vector<double> dist(im.px.size());
  const double inv_m2 = 1.0 / (m * m), inv_s2 = 1.0 / (double(S) * S);
  for (int it = 0; it < iterations; ++it) {
    std::fill(dist.begin(), dist.end(), INFINITY);
    for (std::size_t k = 0; k < c.size(); ++k) {
      const int x0 = std::max(0, int(c[k].x) - S), x1 = std::min(W, int(c[k].x) + S + 1);
      const int y0 = std::max(0, int(c[k].y) - S), y1 = std::min(H, int(c[k].y) + S + 1);
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
          const std::size_t p = std::size_t(y) * W + x;
          const double di = im.px[p] - c[k].i, dx = x - c[k].x, dy = y - c[k].y;
          const double d = di * di * inv_m2 + (dx * dx + dy * dy) * inv_s2;
          if (d < dist[p]) dist[p] = d, lab[p] = int(k);
        }
    }
    std::vector<C> sum(c.size(), {0, 0, 0});
    std::vector<int> n(c.size(), 0);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const std::size_t p = std::size_t(y) * W + x;
        if (lab[p] < 0) continue;
        auto& s = sum[std::size_t(lab[p])];
        s.i += im.px[p], s.x += x, s.y += y;
        ++n[std::size_t(lab[p])];
      }
    for (std::size_t k = 0; k < c.size(); ++k)
      if (n[k]) c[k] = {sum[k].i / n[k], sum[k].x / n[k], sum[k].y / n[k]};
  }
  for (auto& l : lab)
    if (l < 0) l = 0;
  // Connectivity: relabel 4-connected components; small ones join the previous neighbour.
  std::vector<int> out(im.px.size(), -1), stack, comp;
  const int min_size = std::max(1, S * S / 4);
  const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
  int next = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const std::size_t p0 = std::size_t(y) * W + x;
      if (out[p0] >= 0) continue;
      int adjacent = -1;
      for (int d = 0; d < 4; ++d) {
        const int xx = x + dx[d], yy = y + dy[d];
        if (xx >= 0 && xx < W && yy >= 0 && yy < H && out[std::size_t(yy) * W + xx] >= 0)
          adjacent = out[std::size_t(yy) * W + xx];
      }
      comp.clear();
      stack.assign(1, int(p0));
      out[p0] = next;
      while (!stack.empty()) {
        const int p = stack.back();
        stack.pop_back();
        comp.push_back(p);
        const int px = p % W, py = p / W;
        for (int d = 0; d < 4; ++d) {
          const int xx = px + dx[d], yy = py + dy[d];
          if (xx < 0 || xx >= W || yy < 0 || yy >= H) continue;
          const std::size_t q = std::size_t(yy) * W + xx;
          if (out[q] < 0 && lab[q] == lab[p0]) out[q] = next, stack.push_back(int(q));
        }
      }
      if (int(comp.size()) < min_size && adjacent >= 0) {
        for (int p : comp) out[std::size_t(p)] = adjacent;
      } else {
        ++next;
      }
    }
  count = next;
  return out;
}

enum class Superpixels { slic, grid };
enum class Labels { binary, bands };

class Segmentation final : public dualgap::DatasetPlugin {
 public:
  struct Options {
    std::string dir = "${DUALGAP_DATA}/weizmann_horse";
    int num_images = 100;
    Superpixels superpixels = Superpixels::slic;
    int superpixel_size = 20;
    double compactness = 20.0;
    int slic_iterations = 5;
    Labels labels = Labels::binary;
    int bands = 2;

    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::dir, "dir", "folder with gray/*.jpg and figure_ground/*.jpg").path();
      b.field(&Options::num_images, "num_images", "use the first images in name order (0: all 328)").min(0);
      b.choice(&Options::superpixels, "superpixels", {{"slic", Superpixels::slic}, {"grid", Superpixels::grid}},
               "over-segmentation method");
      b.field(&Options::superpixel_size, "superpixel_size", "SLIC grid step S / grid cell side, in pixels").min(2);
      b.field(&Options::compactness, "compactness", "SLIC m: intensity (0..255) weight vs space").min(1e-6);
      b.field(&Options::slic_iterations, "slic_iterations", "SLIC k-means iterations").min(1);
      b.choice(&Options::labels, "labels", {{"binary", Labels::binary}, {"bands", Labels::bands}},
               "binary figure/ground, or 2*bands labels: fg/bg x intensity band (the multi-label variant for "
               "potts_expansion)");
      b.field(&Options::bands, "bands", "intensity bands per side for labels = bands").range(1, 8);
    }
  };

  explicit Segmentation(const Options& o)
      : dir_(o.dir), num_images_(o.num_images), method_(o.superpixels), size_(o.superpixel_size),
        compactness_(o.compactness), iterations_(o.slic_iterations), labels_(o.labels), bands_(o.bands) {}

  bool depends_on_seed() const override { return false; }

  dualgap::Data load(const dualgap::DatasetContext&) override {
    const std::string dir = dir_;
    if (!std::filesystem::is_directory(std::filesystem::path(dir) / "gray") ||
        !std::filesystem::is_directory(std::filesystem::path(dir) / "figure_ground"))
      throw dualgap::DataError("segmentation: " + dir + " has no gray/ and figure_ground/ folders; "
                               "set DUALGAP_DATA (see shared/data/README.md, weizmann_horse)");
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(dir) / "gray"))
      if (e.path().extension() == ".jpg") names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    if (names.empty()) throw dualgap::data_error(dir + "/gray", 0, "no .jpg images found");
    if (num_images_ > 0 && names.size() > static_cast<std::size_t>(num_images_)) names.resize(num_images_);

    // The core caches the images' graphs once for every repeat and splits them into train and
    // test (`test_fraction`, a core data key) with the repeat's seed, as for any data set.
    dualgap::Data data = build(dir, names);
    data.name = labels_ == Labels::binary ? "horse" : "horse-bands";
    data.source = dir + " (" + std::to_string(data.train.num_examples()) + " images, " +
                  (method_ == Superpixels::slic ? "slic" : "grid") + " superpixels of size " + std::to_string(size_) +
                  ", labels " + (labels_ == Labels::binary ? "binary" : "bands") + ")";
    return data;
  }

 private:
  static constexpr int kHist = 16, kOri = 8, kPos = 4;

  dualgap::Data build(const std::string& dir, const std::vector<std::string>& names) const {
    const int K = labels_ == Labels::binary ? 2 : 2 * bands_;
    const int d = kHist + 2 + 4 + 1 + kOri + kPos * kPos + 1;
    dualgap::Examples ex;
    ex.num_classes = K;
    ex.unit_offset.push_back(0);
    ex.edge_offset.push_back(0);
    std::vector<double> feats;
    for (const auto& name : names) {
      const Image im = read_jpeg(dir + "/gray/" + name);
      const Image mask = read_jpeg(dir + "/figure_ground/" + name);
      if (im.w != mask.w || im.h != mask.h)
        throw dualgap::data_error(dir + "/figure_ground/" + name, 0, "mask size differs from the image");
      int count = 0;
      const std::vector<int> sp = method_ == Superpixels::slic
                                      ? slic_superpixels(im, size_, compactness_, iterations_, count)
                                      : grid_superpixels(im, size_, count);
      const int W = im.w, H = im.h;
      std::vector<double> f(static_cast<std::size_t>(count) * d, 0.0), npx(count, 0.0);
      std::vector<double> votes(static_cast<std::size_t>(count) * K, 0.0);
      std::set<std::pair<int, int>> adj;
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          const std::size_t p = std::size_t(y) * W + x;
          const int s = sp[p];
          double* fs = f.data() + std::size_t(s) * d;
          const double v = im.px[p] / 255.0;
          fs[std::min(kHist - 1, int(v * kHist))] += 1;
          fs[kHist] += v;
          fs[kHist + 1] += v * v;
          const double xn = double(x) / std::max(1, W - 1), yn = double(y) / std::max(1, H - 1);
          fs[kHist + 2] += xn, fs[kHist + 3] += yn, fs[kHist + 4] += xn * xn, fs[kHist + 5] += yn * yn;
          // Central-difference gradient: magnitude and an 8-bin orientation histogram.
          const int xl = std::max(0, x - 1), xr = std::min(W - 1, x + 1);
          const int yu = std::max(0, y - 1), yd = std::min(H - 1, y + 1);
          const double gx = (im.px[std::size_t(y) * W + xr] - im.px[std::size_t(y) * W + xl]) / 255.0;
          const double gy = (im.px[std::size_t(yd) * W + x] - im.px[std::size_t(yu) * W + x]) / 255.0;
          const double mag = std::sqrt(gx * gx + gy * gy);
          fs[kHist + 6] += mag;
          const double ang = std::atan2(gy, gx) + M_PI;  // 0..2pi
          fs[kHist + 7 + std::min(kOri - 1, int(ang / (2 * M_PI) * kOri))] += mag;
          fs[kHist + 7 + kOri + std::min(kPos - 1, int(yn * kPos)) * kPos + std::min(kPos - 1, int(xn * kPos))] += 1;
          npx[std::size_t(s)] += 1;
          const int fg = mask.px[p] >= 128 ? 1 : 0;
          const int label = labels_ == Labels::binary ? fg : fg * bands_ + std::min(bands_ - 1, int(v * bands_));
          votes[std::size_t(s) * K + label] += 1;
          if (x + 1 < W && sp[p + 1] != s) adj.emplace(std::min(s, sp[p + 1]), std::max(s, sp[p + 1]));
          if (y + 1 < H && sp[p + W] != s) adj.emplace(std::min(s, sp[p + W]), std::max(s, sp[p + W]));
        }
      // Superpixels are renumbered densely (a label may be unused after SLIC).
      std::vector<int> id(count, -1);
      int U = 0;
      for (int s = 0; s < count; ++s)
        if (npx[s] > 0) id[s] = U++;
      for (int s = 0; s < count; ++s) {
        if (id[s] < 0) continue;
        double* fs = f.data() + std::size_t(s) * d;
        const double n = npx[s];
        for (int j = 0; j < d - 1; ++j) fs[j] /= n;  // averages and normalized histograms
        fs[kHist + 1] = std::sqrt(std::max(0.0, fs[kHist + 1] - fs[kHist] * fs[kHist]));  // std
        fs[d - 1] = 1.0;
        feats.insert(feats.end(), fs, fs + d);
        const double* vs = votes.data() + std::size_t(s) * K;
        ex.y.push_back(int(std::max_element(vs, vs + K) - vs));
      }
      for (auto [a, b] : adj) ex.edges.emplace_back(id[a], id[b]);
      ex.unit_offset.push_back(static_cast<std::int64_t>(ex.y.size()));
      ex.edge_offset.push_back(static_cast<std::int64_t>(ex.edges.size()));
    }
    ex.X = dualgap::FeatureMatrix(dualgap::DenseMatrix(
        Eigen::Map<dualgap::DenseMatrix>(feats.data(), static_cast<Eigen::Index>(ex.y.size()), d)));
    ex.check("segmentation");
    dualgap::Data out;
    out.name = "horse";
    out.train = std::move(ex);
    out.source = dir;
    return out;
  }

  std::string dir_;
  int num_images_;
  Superpixels method_;
  int size_;
  double compactness_;
  int iterations_;
  Labels labels_;
  int bands_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_dataset<Segmentation>(
      "segmentation", "1.0.0",
      "Weizmann Horse figure/ground superpixel graphs (SLIC or grid), HorseSeg-like (Shah et al., CVPR 2015, App. A)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
