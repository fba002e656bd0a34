// Ten lines that kept the host compiler busy for its whole time limit and near a gigabyte.
constexpr long f(long n)
{
  long s = 0;
  for (long i = 0; i < n; ++i) s += i % 7;
  return s;
}
static_assert(f(1000000000L) > 0);
__global__ void k(int *d)
{
  __shared__ int s[32];
  s[threadIdx.x] = d[threadIdx.x];
}
