<?php
// A student eq01 whose ID number is "=eq01" (user_create_user, as the admin's form saves it), and ID numbers A1, -C2, @D3, E4, B5 for the others.
define('CLI_SCRIPT', true);
require(getenv('MOODLE_DIR').'/config.php');
require_once($CFG->dirroot.'/user/lib.php');
\core\session\manager::set_user(get_admin());
$ids = json_decode(file_get_contents(getenv('SCRATCH').'/ids.json'), true);
$id = user_create_user((object)['username'=>'eq01','idnumber'=>'=eq01','password'=>'Pw#12345678','firstname'=>'Eq','lastname'=>'Test',
    'email'=>'eq01@example.invalid','auth'=>'manual','confirmed'=>1,'mnethostid'=>$CFG->mnet_localhost_id], true, false);
$instance = $DB->get_record('enrol', ['courseid'=>$ids['course'],'enrol'=>'manual'], '*', MUST_EXIST);
enrol_get_plugin('manual')->enrol_user($instance, $id, $DB->get_field('role','id',['shortname'=>'student']));
foreach (['alice01'=>'A1','-carol'=>'-C2','@dan'=>'@D3','erin01'=>'E4','bob01'=>'B5'] as $u => $n) $DB->set_field('user','idnumber',$n,['username'=>$u]);
echo "eq01 id $id idnumber stored ".json_encode($DB->get_field('user','idnumber',['id'=>$id]))."\n";
