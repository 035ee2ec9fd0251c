extern "C" __global__ void k(const float *x, double *y, int n) {}
/* mkb:plan
launch k grid(1) block(1) args(x, y, i32(n))
*/
