% Runs the Least Squares Revisited authors' cls.m, mls.m and stagewisemls.m (the user's own
% checkout, on the Octave path) on the features lsr_export wrote, and prints one JSON object per
% line: test error and time of each, and our objective evaluated at their solutions and at ours.
%   octave --no-gui --quiet bench/peers/lsr_authors.m DIR LAMBDA
% DIR holds rff/ and pca/ (train.bin, test.bin: float64, row after row; train.y, test.y: class
% indices 0..K-1; shape.txt: n m d K) and ours/ (W of our linear and logistic runs, same format).
% Called by bench/peers/lsr_authors.sh, which states the lambda mapping.
1;

function [X, y] = read_split(dir, name, rows, d)
  fid = fopen(fullfile(dir, [name '.bin']), 'r');
  X = fread(fid, [d, rows], 'double')';
  fclose(fid);
  y = load(fullfile(dir, [name '.y'])) + 1;
end

function [Xt, yt, Xs, ys, K] = read_features(dir)
  s = load(fullfile(dir, 'shape.txt'));
  [Xt, yt] = read_split(dir, 'train', s(1), s(3));
  [Xs, ys] = read_split(dir, 'test', s(2), s(3));
  K = s(4);
end

function Y = one_hot(y, K)
  Y = zeros(numel(y), K);
  Y(sub2ind(size(Y), (1:numel(y))', y(:))) = 1;
end

function e = test_error(P, y)
  [~, k] = max(P, [], 2);
  e = mean(k(:) ~= y(:));
end

% Our objectives (plugins/solver/gls/README.md), written out here independently of dualgap:
%   linear:   (1/2n) ||X W - Y||_F^2 + (lambda/2) ||W||_F^2
%   logistic: (1/n) sum_i [log sum_k exp(x_i w_k) - x_i w_{y_i}] + (lambda/2) ||W||_F^2
function f = linear_objective(X, Y, W, lambda)
  f = sum(sum((X * W - Y) .^ 2)) / (2 * rows(X)) + lambda / 2 * sum(W(:) .^ 2);
end

function f = logistic_objective(X, y, W, lambda)
  S = X * W;
  z = max(S, [], 2);
  lse = z + log(sum(exp(S - z), 2));
  f = mean(lse - S(sub2ind(size(S), (1:rows(S))', y(:)))) + lambda / 2 * sum(W(:) .^ 2);
end

function W = read_ours(dir, name, d, K)
  fid = fopen(fullfile(dir, [name '.bin']), 'r');
  W = fread(fid, [K, d], 'double')';  % row after row of the (d, K) matrix
  fclose(fid);
end

function emit(varargin)
  % one JSON object: name/value pairs, numbers with 17 significant digits
  parts = {};
  for i = 1:2:numel(varargin)
    v = varargin{i + 1};
    if ischar(v)
      parts{end + 1} = sprintf('"%s": "%s"', varargin{i}, v);
    else
      parts{end + 1} = sprintf('"%s": %.17g', varargin{i}, v);
    end
  end
  printf('{%s}\n', strjoin(parts, ', '));
end

args = argv();
dir = args{1};
lambda = str2double(args{2});  % ours (problem.lambda of lsr_authors_rff.yaml)
rand('seed', 1); randn('seed', 2);
emit('method', 'info', 'blas', strrep(version('-blas'), '"', ''), 'octave', version());

[Xt, yt, Xs, ys, K] = read_features(fullfile(dir, 'rff'));
[n, d] = size(Xt);
Yt = one_hot(yt, K);
% Our random Fourier features are c cos(w.x + b) with c = sqrt(2/d); theirs are cos(w.x + b), the
% scale their code's constants (mls's stopping threshold, the calibration ridge) were set for.
% They get X / c. Their ridge is lambda' sqrt(n) I added to X'X, ours n lambda I added to X'X
% (the normal equations of (1/2n)||XW - Y||^2 + (lambda/2)||W||^2): on X / c the same fit needs
% lambda' = lambda sqrt(n) / c^2, and their W, times 1/c, is a W on our features.
c = sqrt(2 / d);
their_lambda = lambda * sqrt(n) / c ^ 2;
Xo = Xt; Xt = Xt / c; Xs = Xs / c;

% linear: the ridge least-squares fit their cls.m starts from, solved as they solve it
tic; C = chol(Xt' * Xt + their_lambda * sqrt(n) * eye(d), 'lower'); W = C' \ (C \ (Xt' * Yt)); t = toc;
Wo = read_ours(fullfile(dir, 'ours'), 'linear', d, K);
emit('method', 'linear', 'test_error', test_error(Xs * W, ys), 'time', t, ...
     'objective_theirs', linear_objective(Xo, Yt, W / c, lambda), 'objective_ours', linear_objective(Xo, Yt, Wo, lambda));

tic; P = cls(Xt, Yt, their_lambda, Xs); t = toc;
emit('method', 'calibrated', 'test_error', test_error(P, ys), 'time', t);

tic; W = mls(Xt, Yt, their_lambda); t = toc;
Wo = read_ours(fullfile(dir, 'ours'), 'logistic', d, K);
emit('method', 'logistic', 'test_error', test_error(Xs * W, ys), 'time', t, ...
     'objective_theirs', logistic_objective(Xo, yt, W / c, lambda), 'objective_ours', logistic_objective(Xo, yt, Wo, lambda));

% stagewise: the PCA-50 input, the bandwidth by the median trick on 3000 training rows (the
% Gaussian kernel's 1 / sqrt(median squared distance)), 20 stages of 2000 features
[Pt, pt, Ps, ps, K] = read_features(fullfile(dir, 'pca'));
n = rows(Pt);
sample = Pt(randperm(n, min(3000, n)), :);
sq = sum(sample .^ 2, 2);
D2 = sq + sq' - 2 * (sample * sample');
scale = 1 / sqrt(median(D2(:)));
% (stagewisemls passes its lambda argument nowhere: its inner fits use the constant 2, as here)
tic; P = stagewisemls(Pt, one_hot(pt, K), 2, Ps, 2000, 20, scale); t = toc;
emit('method', 'stagewise-logistic', 'test_error', test_error(P, ps), 'time', t);
