// All material laws (docs/method.md section 4). Each is a stateless struct with SOFTIK_HD
// psi(F), P(F), dPdF(F) (dPdF(i+3j, k+3l) = dP_ij/dF_kl) and host-only validating factories.
#pragma once

#include "softik/fem/materials/arruda_boyce.hpp"
#include "softik/fem/materials/linear_elastic.hpp"
#include "softik/fem/materials/mooney_rivlin.hpp"
#include "softik/fem/materials/neo_hookean.hpp"
#include "softik/fem/materials/neo_hookean_d1.hpp"
#include "softik/fem/materials/ogden.hpp"
#include "softik/fem/materials/saint_venant_kirchhoff.hpp"
#include "softik/fem/materials/stable_neo_hookean.hpp"
#include "softik/fem/materials/volumetric.hpp"
#include "softik/fem/materials/yeoh.hpp"
