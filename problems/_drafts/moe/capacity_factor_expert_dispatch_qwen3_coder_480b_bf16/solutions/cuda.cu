extern "C" __global__ void k(float *x) {}
/* mkb:plan
launch k grid(1) block(32) args(output)
*/
