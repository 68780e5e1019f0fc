// The ticket counter of ms_counter_in_header_*.cu: a __device__ variable that a header defines (as a
// kernel header of a sample might), in a namespace.
#pragma once
namespace tickets {
__device__ unsigned count = 0;
}
