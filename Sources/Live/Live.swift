// Live module.
