"""The environment through which cltc hands a pytest run its kernels and takes back its result
(read by the plugin in the pytest process, set by pytest_suite in cltc's): kept apart from the
plugin so that cltc itself runs where pytest is not installed."""
MANIFEST_ENV = "CLTC_KERNELS"
RESULT_ENV = "CLTC_PYTEST_RESULT"
