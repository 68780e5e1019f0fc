#pragma once
// host entry points of the library: each runs one kernel on device memory the caller owns
void scale_on_device(int *d_data, int n);
void histogram_on_device(const int *d_data, int n, int *h_bins);
int histogram_bins();
