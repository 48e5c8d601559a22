"""App-side helpers of the Attention Explorer: state, cached compute, figure builders, editors."""
